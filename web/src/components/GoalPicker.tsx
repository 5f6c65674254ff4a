import { useConversionGoalList } from "../pages/goals/model";

/** Which conversion goal the page counts: any (the default) or one of the project's. */
export function GoalPicker({
  value,
  onChange,
}: {
  value: string | undefined;
  onChange: (goal: string | undefined) => void;
}) {
  const goals = useConversionGoalList();
  const list = goals.data ?? [];
  return (
    <label className="goal-picker">
      <span>Goal</span>
      <select
        value={value ?? ""}
        onChange={(e) => onChange(e.target.value || undefined)}
        aria-label="Conversion goal"
      >
        <option value="">Any conversion goal</option>
        {list.map((g) => (
          <option key={g.id} value={g.id}>
            {g.name}
          </option>
        ))}
        {value && !list.some((g) => g.id === value) && !goals.isPending && (
          <option value={value}>(a deleted goal)</option>
        )}
      </select>
    </label>
  );
}
