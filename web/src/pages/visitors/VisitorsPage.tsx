import { Route, Routes } from "react-router";
import { PageHeader } from "../../components/states";
import { JourneyPage } from "./JourneyPage";
import { LeadPage } from "./LeadPage";
import { LeadsSection } from "./LeadsSection";
import { LiveEvents } from "./LiveEvents";

/** Visitors & leads: the lead list, a lead's page, a visitor's journey, and events as they arrive. */
export default function VisitorsPage() {
  return (
    <Routes>
      <Route
        index
        element={
          <>
            <PageHeader title="Visitors & leads" />
            <LeadsSection />
            <LiveEvents />
          </>
        }
      />
      <Route path="leads/:id" element={<LeadPage />} />
      <Route path="v/:visitorId" element={<JourneyPage />} />
    </Routes>
  );
}
