import { useQuery } from "@tanstack/react-query";
import { Navigate, useParams } from "react-router";
import { api, call } from "../../api/client";
import { ErrorState, PageSkeleton } from "../../components/states";
import { dashboardKeys } from "./model";
import { reportUrl } from "./reportUrl";

/**
 * `/dashboards/insights/:id`: a saved insight by its id (a subscription mail links here), opened on
 * its report's page as the list's "Open" does, with the settings it has now.
 */
export function OpenInsight() {
  const { id = "" } = useParams();
  const insight = useQuery({
    queryKey: dashboardKeys.insight(id),
    queryFn: () => call(api.GET("/api/insights/{id}", { params: { path: { id } } })),
  });
  if (insight.isPending) return <PageSkeleton label="Opening the insight" />;
  if (insight.isError) return <ErrorState title="This insight cannot be opened" error={insight.error} />;
  return <Navigate to={reportUrl(insight.data.kind, insight.data.settings)} replace />;
}
