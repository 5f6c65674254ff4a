import { Route, Routes } from "react-router";
import { PageHeader } from "../../components/states";
import { BeliefPage } from "./BeliefPage";
import { BeliefsSection } from "./BeliefsSection";
import { ConversionGoalEditor } from "./ConversionGoalEditor";
import { ConversionGoalsSection } from "./ConversionGoalsSection";
import { GoalEditor } from "./GoalEditor";
import { GoalsSection } from "./GoalsSection";

/** Goals & beliefs: targets with their progress, what counts as a conversion, and the beliefs behind them. */
export default function GoalsPage() {
  return (
    <Routes>
      <Route
        index
        element={
          <>
            <PageHeader title="Goals & beliefs" />
            <GoalsSection />
            <ConversionGoalsSection />
            <BeliefsSection />
          </>
        }
      />
      <Route path=":id/edit" element={<GoalEditor />} />
      <Route path="conversions/:id" element={<ConversionGoalEditor />} />
      <Route path="beliefs/:id" element={<BeliefPage />} />
    </Routes>
  );
}
