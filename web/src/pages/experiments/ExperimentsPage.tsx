import { Route, Routes } from "react-router";
import { ExperimentEditor } from "./ExperimentEditor";
import { ExperimentList } from "./ExperimentList";
import { ExperimentResults } from "./ExperimentResults";

/** Experiments: the list, the editor, and each experiment's results with its lifecycle actions. */
export default function ExperimentsPage() {
  return (
    <Routes>
      <Route index element={<ExperimentList />} />
      <Route path="new" element={<ExperimentEditor />} />
      <Route path=":id" element={<ExperimentResults />} />
      <Route path=":id/edit" element={<ExperimentEditor />} />
    </Routes>
  );
}
