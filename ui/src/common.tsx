// Small shared pieces: loading / error / empty states, times, badges.
import type { ReactNode } from "react";
import type { CombinedError } from "urql";
import { errorCode } from "./client";

export function Loading({ what }: { what: string }) {
  return (
    <p className="state" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="state empty">{children}</p>;
}

export function ErrorBox({ error, retry }: { error: CombinedError; retry?: () => void }) {
  const code = errorCode(error);
  const message =
    code === "UNAVAILABLE"
      ? "The memory store is unavailable right now (UNAVAILABLE). Nothing was lost; retry in a moment."
      : error.graphQLErrors[0]?.message ?? error.networkError?.message ?? error.message;
  return (
    <div className="error" role="alert">
      <strong>{code ?? "Error"}</strong> {message}
      {retry && (
        <button type="button" onClick={retry}>
          Retry
        </button>
      )}
    </div>
  );
}

/** A time in UTC, to the minute; the full ISO value on hover. */
export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span>—</span>;
  return (
    <time dateTime={at} title={at}>
      {at.slice(0, 16).replace("T", " ")}
    </time>
  );
}

/** When something held: "from → to", or "from → now" while it still holds. */
export function Validity({ from, to }: { from: string; to: string | null | undefined }) {
  return (
    <>
      <Time at={from} /> → {to ? <Time at={to} /> : "now"}
    </>
  );
}

export function Badge({ tone, children }: { tone: "ok" | "wait" | "old" | "info" | "bad"; children: ReactNode }) {
  return <span className={`badge ${tone}`}>{children}</span>;
}

/** "1 turn", "3 turns". */
export function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function shortId(id: string): string {
  return id.length > 14 ? `${id.slice(0, 12)}…` : id;
}
