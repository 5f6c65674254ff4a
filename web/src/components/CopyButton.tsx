import { useState } from "react";

/** Copies text to the clipboard and says so (for screen readers too). */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  return (
    <>
      <button
        type="button"
        className="button secondary small"
        onClick={() =>
          navigator.clipboard.writeText(text).then(
            () => setState("copied"),
            () => setState("failed"),
          )
        }
      >
        {label}
      </button>
      <span role="status" className="muted small">
        {state === "copied" ? "Copied." : state === "failed" ? "Copy failed: select the text instead." : ""}
      </span>
    </>
  );
}

/** A block of code (a setup snippet, a link shown once) with its copy button beside it. */
export function CopyCode({ code, label, testId }: { code: string; label: string; testId?: string }) {
  return (
    <div className="copy-row">
      <pre className="code" data-testid={testId}>
        <code>{code}</code>
      </pre>
      <CopyButton text={code} label={label} />
    </div>
  );
}
