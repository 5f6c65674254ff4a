import { Route, Routes } from "react-router";
import { DashboardList } from "./DashboardList";
import { DashboardView } from "./DashboardView";
import { OpenInsight } from "./OpenInsight";

/** Dashboards: grids of saved insights, each shareable by a public read-only link. */
export default function DashboardsPage() {
  return (
    <Routes>
      <Route index element={<DashboardList />} />
      <Route path=":id" element={<DashboardView />} />
      <Route path="insights/:id" element={<OpenInsight />} />
    </Routes>
  );
}
