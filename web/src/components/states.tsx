import type { ReactNode } from "react";

/** Placeholder while a page's data loads (announced to screen readers once). */
export function PageSkeleton({ label = "Loading" }: { label?: string }) {
  return (
    <div className="skeleton" role="status" aria-live="polite">
      <span className="visually-hidden">{label}…</span>
      <div className="skeleton-bar wide" />
      <div className="skeleton-grid">
        <div className="skeleton-block" />
        <div className="skeleton-block" />
        <div className="skeleton-block" />
        <div className="skeleton-block" />
      </div>
      <div className="skeleton-bar" />
    </div>
  );
}

/** A failed load or action, with the API's own message. */
export function ErrorState({
  error,
  retry,
  title = "Something went wrong",
}: {
  error: unknown;
  retry?: () => void;
  title?: string;
}) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="callout error" role="alert">
      <strong>{title}</strong>
      <p>{message}</p>
      {retry && (
        <button type="button" className="button secondary" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Nothing to show yet, with what to do about it. */
export function EmptyState({
  title,
  children,
  action,
}: {
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children && <div className="muted">{children}</div>}
      {action}
    </div>
  );
}

/** A page's heading, with actions on the right. */
export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="page-header">
      <h1>{title}</h1>
      {children && <div className="page-actions">{children}</div>}
    </div>
  );
}

export function Card({
  title,
  children,
  actions,
}: {
  title?: string;
  children: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <section className="card" aria-label={title}>
      {(title || actions) && (
        <div className="card-header">
          {title && <h2>{title}</h2>}
          {actions}
        </div>
      )}
      {children}
    </section>
  );
}

/** A save's outcome under its form: the API's refusal, or a quiet "Saved." once it went through. */
export function SaveOutcome({ save }: { save: { isError: boolean; isSuccess: boolean; error: unknown } }) {
  if (save.isError) return <ErrorState title="Not saved" error={save.error} />;
  if (!save.isSuccess) return null;
  return (
    <p className="ok-text" role="status">
      Saved.
    </p>
  );
}
