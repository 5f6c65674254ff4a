import { Route, Routes } from "react-router";
import { CohortEditor } from "./CohortEditor";
import { CohortList } from "./CohortList";

/** Cohorts: saved groups of people with live counts, usable as a filter in every report. */
export default function CohortsPage() {
  return (
    <Routes>
      <Route index element={<CohortList />} />
      <Route path="new" element={<CohortEditor />} />
      <Route path=":id" element={<CohortEditor />} />
    </Routes>
  );
}
