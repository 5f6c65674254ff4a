import { EmptyState, PageHeader } from "../../components/states";

/** A page area that is not built yet: its nav entry and deep links already work. */
export function ComingSoonPage({ title }: { title: string }) {
  return (
    <>
      <PageHeader title={title} />
      <EmptyState title="Coming soon">
        This part of the dashboard is being built. Everything it will show is already in the API: see{" "}
        <a href="/docs">the API reference</a>.
      </EmptyState>
    </>
  );
}
