import { Link, useLocation } from "react-router";
import { EmptyState, PageHeader } from "../../components/states";

export default function NotFoundPage() {
  const { pathname } = useLocation();
  return (
    <>
      <PageHeader title="Page not found" />
      <EmptyState
        title={`There is no page at ${pathname}.`}
        action={<Link to="/">Go to the overview</Link>}
      />
    </>
  );
}
