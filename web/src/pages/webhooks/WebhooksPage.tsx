import { Route, Routes } from "react-router";
import { PageHeader } from "../../components/states";
import { DeliveriesPage } from "./DeliveriesPage";
import { SourcesSection } from "./SourcesSection";
import { SubscriptionsSection } from "./SubscriptionsSection";

/** Webhooks: outgoing subscriptions with their delivery logs, and incoming sources' secrets. */
export default function WebhooksPage() {
  return (
    <Routes>
      <Route
        index
        element={
          <>
            <PageHeader title="Webhooks" />
            <SubscriptionsSection />
            <SourcesSection />
          </>
        }
      />
      <Route path=":id" element={<DeliveriesPage />} />
    </Routes>
  );
}
