import { Link, Route, Routes } from "react-router";
import { PageHeader } from "../../components/states";
import { FlagDetail } from "./FlagDetail";
import { FlagEditor } from "./FlagEditor";
import { FlagList } from "./FlagList";

/** Feature flags: the list with switches, a new flag, and each flag with its evaluation and history. */
export default function FlagsPage() {
  return (
    <Routes>
      <Route index element={<FlagList />} />
      <Route
        path="new"
        element={
          <>
            <PageHeader title="New flag">
              <Link className="button secondary" to="/flags">
                Cancel
              </Link>
            </PageHeader>
            <FlagEditor />
          </>
        }
      />
      <Route path=":key" element={<FlagDetail />} />
    </Routes>
  );
}
