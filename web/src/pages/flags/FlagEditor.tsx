import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { useNavigate } from "react-router";
import { api, call } from "../../api/client";
import { Field, SelectField } from "../../components/Field";
import { Card, ErrorState } from "../../components/states";
import {
  attributesIn,
  type Flag,
  flagKeys,
  parseValue,
  useFlags,
  HASHINGS,
  type Hashing,
  VALUE_TYPES,
  type ValueType,
  valueText,
} from "./model";
import { type RuleDraft, RulesEditor, ruleBody, ruleDraft } from "./RulesEditor";
import { Switch } from "./Switch";
import { ValueInput } from "./ValueInput";

interface Draft {
  key: string;
  description: string;
  valueType: ValueType;
  defaultValue: string;
  enabled: boolean;
  hashing: Hashing;
  tags: string;
  rules: RuleDraft[];
}

const blank: Draft = {
  key: "",
  description: "",
  valueType: "boolean",
  defaultValue: "false",
  enabled: true,
  hashing: "growthbook",
  tags: "",
  rules: [],
};

const fromFlag = (f: Flag): Draft => ({
  key: f.key,
  description: f.description ?? "",
  valueType: f.valueType,
  defaultValue: valueText(f.valueType, f.defaultValue),
  enabled: f.enabled,
  hashing: f.hashing,
  tags: f.tags.join(", "),
  rules: f.rules.map((r) => ruleDraft(r, f.valueType)),
});

/** The fields a create or a change sends (everything but the key). */
function body(d: Draft) {
  return {
    description: d.description.trim() || null,
    valueType: d.valueType,
    defaultValue: parseValue(d.valueType, d.defaultValue, "The default value"),
    enabled: d.enabled,
    hashing: d.hashing,
    tags: d.tags
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean),
    rules: d.rules.map((r, i) => ruleBody(r, d.valueType, i + 1)),
  };
}

/** Creates a flag (no `flag`) or changes one: typed default, tags, the kill switch, and the rules. */
export function FlagEditor({ flag }: { flag?: Flag }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const all = useFlags();
  const [draft, setDraft] = useState<Draft>(() => (flag ? fromFlag(flag) : blank));
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const [saved, setSaved] = useState(false);
  // A change saved elsewhere (the list's switch, another tab's save) reloads the form.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the flag's last change is what matters
  useEffect(() => {
    if (flag) setDraft(fromFlag(flag));
  }, [flag?.updatedAt]);

  const save = useMutation({
    mutationFn: async () => {
      const fields = body(draft);
      if (!flag) return call(api.POST("/api/flags", { body: { key: draft.key.trim(), ...fields } }));
      return call(api.PATCH("/api/flags/{key}", { params: { path: { key: flag.key } }, body: fields }));
    },
    onSuccess: (result) => {
      void queryClient.invalidateQueries({ queryKey: flagKeys.all });
      queryClient.setQueryData(flagKeys.one(result.key), result);
      if (flag) setSaved(true);
      else navigate(`/flags/${encodeURIComponent(result.key)}`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    save.mutate();
  };

  return (
    <Card title={flag ? "Definition" : undefined}>
      <form onSubmit={submit} aria-label={flag ? `Edit ${flag.key}` : "Create a flag"}>
        <div className="form-row">
          {!flag && (
            <Field
              label="Key"
              hint="What your code asks for: a-z, 0-9, _ . - (e.g. checkout.new-button)."
              value={draft.key}
              required
              maxLength={100}
              pattern="[a-z0-9][a-z0-9_.\-]{0,99}"
              onChange={(e) => set({ key: e.target.value })}
            />
          )}
          <Field
            label="Description"
            value={draft.description}
            maxLength={2000}
            onChange={(e) => set({ description: e.target.value })}
          />
        </div>
        <div className="form-row">
          <SelectField
            label="Value type"
            value={draft.valueType}
            onChange={(e) => set({ valueType: e.target.value as ValueType })}
            options={VALUE_TYPES}
          />
          <ValueInput
            type={draft.valueType}
            label="Default value"
            value={draft.defaultValue}
            onChange={(defaultValue) => set({ defaultValue })}
          />
          <Field
            label="Tags"
            hint="Comma-separated."
            value={draft.tags}
            onChange={(e) => set({ tags: e.target.value })}
          />
        </div>
        <SelectField
          label="Hashing"
          value={draft.hashing}
          onChange={(e) => set({ hashing: e.target.value as Hashing })}
          options={HASHINGS}
          hint={
            <>
              How rollouts and experiment rules place people. PostHog's keeps the values PostHog gave to a
              flag moved from it; GrowthBook's SDKs then get this flag by remote evaluation only. Changing it
              on a live flag moves people: users may flip sides of a rollout and change variants.
            </>
          }
        />
        <Switch
          checked={draft.enabled}
          onChange={(enabled) => set({ enabled })}
          label="Enabled"
          hint="Off is the kill switch: every SDK serves the default value to everyone."
        />
        <RulesEditor
          rules={draft.rules}
          onChange={(rules) => set({ rules })}
          valueType={draft.valueType}
          attributes={attributesIn(all.data)}
        />
        <button type="submit" className="button" disabled={save.isPending}>
          {flag ? "Save changes" : "Create flag"}
        </button>
        {saved && (
          <span role="status" className="ok-text">
            Saved.
          </span>
        )}
      </form>
      {save.isError && <ErrorState title="Not saved" error={save.error} />}
    </Card>
  );
}
