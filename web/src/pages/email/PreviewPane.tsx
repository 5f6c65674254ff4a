import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { api, call } from "../../api/client";
import { Field } from "../../components/Field";
import { Card, ErrorState } from "../../components/states";
import { type Draft, emailKeys } from "./model";

/** The draft debounced: the preview follows typing without a request per key stroke. */
function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/**
 * The API's rendering of the unsaved draft with sample variables. The HTML is shown in a sandboxed
 * frame served by the API (its CSP allows the email's inline styles; the dashboard's does not).
 */
export function PreviewPane({ draft, variables }: { draft: Draft; variables: string[] }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const input = useDebounced({ draft, values }, 300);
  const preview = useQuery({
    queryKey: emailKeys.preview(input),
    queryFn: () =>
      call(
        api.POST("/api/communications/preview", {
          body: {
            commType: input.draft.commType,
            slots: input.draft.slots,
            blocks: input.draft.blocks,
            variables: input.values,
          },
        }),
      ),
    placeholderData: (prev) => prev,
    retry: false,
  });
  // The saved template's variables, plus any the draft uses that still lack a value (the API lists them).
  const names = [
    ...new Set([
      ...variables.map((v) => v.replace(/\?$/, "")),
      ...Object.keys(values),
      ...(preview.data?.missing ?? []),
    ]),
  ];
  const frame = useRef<HTMLIFrameElement>(null);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      if (e.source === frame.current?.contentWindow && e.data?.type === "lift-email-preview-ready")
        setReady(true);
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, []);
  const html = preview.data?.html;
  useEffect(() => {
    // The frame's origin is opaque (sandboxed), so "*" is the only target that reaches it; the HTML
    // is this admin's own draft.
    if (ready && html !== undefined)
      frame.current?.contentWindow?.postMessage({ type: "lift-email-preview", html }, "*");
  }, [ready, html]);

  return (
    <Card title="Preview">
      {names.length > 0 && (
        <details>
          <summary>Sample variables</summary>
          {names.map((n) => (
            <Field
              key={n}
              label={`Variable ${n}`}
              value={values[n] ?? ""}
              onChange={(e) => setValues({ ...values, [n]: e.target.value })}
            />
          ))}
        </details>
      )}
      {preview.isError && <ErrorState title="Cannot render" error={preview.error} />}
      {preview.data && (
        <>
          <p>
            <strong>Subject:</strong> <span data-testid="preview-subject">{preview.data.subject}</span>
          </p>
          {preview.data.missing.length > 0 && (
            <p className="muted small">Without a value: {preview.data.missing.join(", ")}</p>
          )}
        </>
      )}
      <iframe
        ref={frame}
        title="HTML preview"
        className="preview-frame"
        sandbox="allow-scripts"
        src="/api/communications/preview-frame"
      />
      {preview.data && (
        <details>
          <summary>Plain-text version</summary>
          <pre className="preview-text" data-testid="preview-text">
            {preview.data.text}
          </pre>
        </details>
      )}
    </Card>
  );
}
