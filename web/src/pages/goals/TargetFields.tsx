import { Field } from "../../components/Field";

/** A goal's target and deadline: the same two fields when adding a goal and when editing one. */
export function TargetFields(p: {
  target: string;
  setTarget: (v: string) => void;
  deadline: string;
  setDeadline: (v: string) => void;
}) {
  return (
    <>
      <Field
        label="Target"
        type="number"
        step="any"
        required
        value={p.target}
        onChange={(e) => p.setTarget(e.target.value)}
      />
      <Field
        label="Deadline"
        type="date"
        required
        value={p.deadline}
        onChange={(e) => p.setDeadline(e.target.value)}
      />
    </>
  );
}
