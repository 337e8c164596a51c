// Sign-in: the key is checked against `viewer` before it is kept (for this tab only).
import { type FormEvent, useState } from "react";
import { takeNotice } from "../auth";

type Props = { onSignedIn: (key: string) => void };

async function check(key: string): Promise<string | null> {
  try {
    const response = await fetch("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}`, accept: "application/json" },
      body: JSON.stringify({ query: "query SignIn { viewer { tenantId } }" }),
    });
    const body = (await response.json()) as { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] };
    const error = body.errors?.[0];
    if (!error) return null;
    if (error.extensions?.code === "UNAUTHENTICATED") return "That key was refused: it is unknown, expired or revoked.";
    if (error.extensions?.code === "UNAVAILABLE") return "The memory store is unavailable (UNAVAILABLE); try again shortly.";
    return error.message;
  } catch {
    return "The service could not be reached.";
  }
}

export function SignIn({ onSignedIn }: Props) {
  const [key, setKey] = useState("");
  const [notice] = useState(takeNotice);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    const problem = await check(key.trim());
    setBusy(false);
    if (problem) setError(problem);
    else onSignedIn(key.trim());
  }

  return (
    <main className="signin">
      <h1>recmem memory explorer</h1>
      <p>What the memory believes about each user, why, and since when.</p>
      {notice && (
        <p className="error" role="alert">
          {notice}
        </p>
      )}
      <form onSubmit={submit}>
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          placeholder="rmk_…"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          required
        />
        <p className="hint">Kept in this tab only (sessionStorage); create one with <code>recmem keys create</code>.</p>
        <button type="submit" disabled={busy || !key.trim()}>
          {busy ? "Checking…" : "Sign in"}
        </button>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
