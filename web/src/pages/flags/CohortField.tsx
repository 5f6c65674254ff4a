import { useCohorts } from "../cohorts/model";
import { useFlagSettings } from "./model";

/**
 * The value of an "is in cohort" line: one of the project's cohorts. Says when the project still
 * serves local evaluation, where a cohort line cannot work (docs/flags.md, "Targeting a cohort").
 */
export function CohortField({
  id,
  value,
  onChange,
}: {
  id: string;
  value: string;
  onChange: (cohortId: string) => void;
}) {
  const cohorts = useCohorts();
  const settings = useFlagSettings();
  const list = cohorts.data ?? [];
  const chosen = list.find((c) => c.id === value);
  return (
    <div className="field">
      <label htmlFor={id}>Cohort</label>
      <select
        id={id}
        value={value}
        required
        onChange={(e) => onChange(e.target.value)}
        aria-describedby={`${id}-hint`}
      >
        <option value="">{list.length ? "Choose a cohort" : "No cohort yet (see Cohorts)"}</option>
        {list.map((c) => (
          <option key={c.id} value={c.id}>
            {c.name}
          </option>
        ))}
        {value && !list.some((c) => c.id === value) && <option value={value}>{value}</option>}
      </select>
      <small id={`${id}-hint`} className="muted">
        Evaluated by Lift's server (remote evaluation, the evaluate endpoint) and by server SDKs that fetch
        with the secret key (members as salted hashes, see SDK connection)
        {settings.data?.remoteEvalOnly === false
          ? ". A browser SDK evaluating locally gets no members: there “is in cohort” matches no one and “is not in cohort” everyone; give browsers remote evaluation (or turn on remote evaluation only under SDK connection)."
          : "."}{" "}
        {chosen?.trustBrowserProperties
          ? "This cohort counts lead properties written from the browser too (anyone can send those)."
          : "Its lead-property conditions count only properties your servers set; properties written from the browser are ignored unless the cohort trusts them (the cohort's editor)."}
      </small>
    </div>
  );
}
