import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { api, call } from "../api/client";
import { annotationKeys } from "./annotations";
import { Field } from "./Field";
import { ErrorState } from "./states";

/**
 * Adds an annotation: opened by a click on a chart's day (the date filled in) or by the chart's
 * "Add annotation" button. Saved annotations show on every time chart.
 */
export function AnnotationForm({ date, onDone }: { date: string; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [day, setDay] = useState(date);
  const [endDate, setEndDate] = useState("");
  const [text, setText] = useState("");
  const box = useRef<HTMLFormElement>(null);
  useEffect(() => setDay(date), [date]);
  // Opened by a click on the chart: the text is what to type next.
  useEffect(() => box.current?.querySelector("input")?.focus(), []);
  const save = useMutation({
    mutationFn: () =>
      call(
        api.POST("/api/annotations", {
          body: { date: day, text: text.trim(), ...(endDate ? { endDate } : {}) },
        }),
      ),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: annotationKeys.all });
      onDone();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form ref={box} className="annotation-form" onSubmit={submit} aria-label="Add an annotation">
      <div className="form-row">
        <Field
          label="What happened"
          required
          maxLength={500}
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <Field label="Day" type="date" required value={day} onChange={(e) => setDay(e.target.value)} />
        <Field
          label="Until (optional)"
          type="date"
          min={day}
          value={endDate}
          onChange={(e) => setEndDate(e.target.value)}
        />
      </div>
      <div className="form-row">
        <button type="submit" className="button small" disabled={save.isPending}>
          Save annotation
        </button>
        <button type="button" className="button secondary small" onClick={onDone}>
          Cancel
        </button>
      </div>
      {save.isError && <ErrorState title="Not saved" error={save.error} />}
    </form>
  );
}
