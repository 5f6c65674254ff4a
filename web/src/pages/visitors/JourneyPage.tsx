import { Link, useParams } from "react-router";
import { PageHeader } from "../../components/states";
import { Journey } from "./Journey";

/** `/visitors/v/:visitorId`: one visitor's journey with its attribution. */
export function JourneyPage() {
  const { visitorId } = useParams();
  return (
    <>
      <PageHeader title={`Visitor ${visitorId}`}>
        <Link className="button secondary" to="/visitors">
          All visitors &amp; leads
        </Link>
      </PageHeader>
      <Journey visitorId={visitorId!} />
    </>
  );
}
