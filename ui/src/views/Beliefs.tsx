// Changing what memory believes by hand: correct or retract a fact (on its audit page), add one
// (on the list), and the changes people made, listed in the fact's audit.
import { type FormEvent, useState } from "react";
import { useMutation } from "urql";
import { Badge, ErrorBox, shortId, Time } from "../common";
import { graphql } from "../gql";
import type { FactKind } from "../gql/graphql";
import { metaCondition } from "../scope";
import { useScope } from "./Scope";

const CORRECT = graphql(`
  mutation CorrectFact($id: ID!, $text: String!, $reason: String!) {
    correctFact(id: $id, text: $text, reason: $reason) { written fact { id text } }
  }
`);

const RETRACT = graphql(`
  mutation RetractFact($id: ID!, $reason: String!) {
    retractFact(id: $id, reason: $reason) { written changedFact { id status } }
  }
`);

const ADD = graphql(`
  mutation AddFact($user: ID!, $text: String!, $kind: FactKind!, $agent: String, $session: String, $metadata: JSON) {
    addFact(userId: $user, text: $text, kind: $kind, agentId: $agent, sessionId: $session, metadata: $metadata) {
      written
      fact { id text }
    }
  }
`);

// A change by hand alters the user's counts too: re-read every query that shows them (the header
// and the user list), besides those that hold the changed facts.
const RECOUNT = { additionalTypenames: ["UserStats"] };

export type Correction = { id: string; op: string; trigger: string; reason?: string | null; by?: string | null; at: string };

// Each trigger of a person's run (docs/corrections.md); a forget that changed the fact records `erasure`,
// and the migration that reversed a replacement written out of time order `upgrade`.
const CHANGE_WORDS: Record<string, string> = {
  correction: "Corrected",
  retraction: "Retracted",
  manual: "Added by hand",
  erasure: "Turn forgotten",
  upgrade: "Repaired on upgrade",
};

/** The changes made to the fact since consolidation wrote it, by people or by an upgrade's repair:
 * what, why, who and when (the audit's corrections). */
export function Changes({ corrections }: { corrections: Correction[] }) {
  return (
    <>
      <h3>Changes</h3>
      {corrections.length === 0 ? (
        <p className="muted">None: memory holds it as consolidation wrote it.</p>
      ) : (
        <ul data-testid="fact-corrections">
          {corrections.map((run) => (
            <li key={run.id} data-trigger={run.trigger}>
              <Badge tone={run.trigger === "retraction" ? "bad" : "info"}>{CHANGE_WORDS[run.trigger] ?? run.trigger}</Badge>{" "}
              {run.reason && <em>“{run.reason}”</em>} by <span className="who">{run.by}</span>, <Time at={run.at} />{" "}
              <code>{shortId(run.id)}</code>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** Correct or retract an active fact; `onDone` re-reads the audit. Its draft starts from `text`
 * once: the caller keys it by the fact's id, so that each fact gets a form of its own. */
export function FactActions({ id, text, onDone }: { id: string; text: string; onDone: () => void }) {
  const [mode, setMode] = useState<"" | "correct" | "retract">("");
  const [draft, setDraft] = useState(text);
  const [reason, setReason] = useState("");
  const [corrected, correct] = useMutation(CORRECT);
  const [retracted, retract] = useMutation(RETRACT);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const done = mode === "correct" ? await correct({ id, text: draft, reason }, RECOUNT) : await retract({ id, reason }, RECOUNT);
    if (!done.error) {
      setMode("");
      onDone();
    }
  };
  const error = mode === "correct" ? corrected.error : retracted.error;
  return (
    <div className="belief-actions" data-testid="fact-actions">
      <div className="toolbar">
        <button type="button" onClick={() => setMode("correct")}>Correct…</button>
        <button type="button" className="danger" onClick={() => setMode("retract")}>Retract…</button>
      </div>
      {mode && (
        <form className="belief-form" onSubmit={submit} aria-label={mode === "correct" ? "Correct the fact" : "Retract the fact"}>
          {mode === "correct" && (
            <label>
              Corrected statement
              <input name="text" value={draft} onChange={(e) => setDraft(e.target.value)} required />
            </label>
          )}
          <label>
            Reason
            <input name="reason" value={reason} onChange={(e) => setReason(e.target.value)} required />
          </label>
          {error && <ErrorBox error={error} />}
          <div className="actions">
            <button type="button" onClick={() => setMode("")}>Cancel</button>
            <button type="submit" disabled={corrected.fetching || retracted.fetching}>
              {mode === "correct" ? "Save correction" : "Retract"}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}

/** The metadata map of `key=value` lines (blank lines skipped; values read as the filter reads
 * them, scope.ts), or the problem with the first line that is no such pair or repeats a key. */
export function metadataOf(text: string): { map: Record<string, unknown> | null; problem?: string } {
  const map: Record<string, unknown> = {};
  const lines = text.split("\n").map((line) => line.trim()).filter(Boolean);
  for (const line of lines) {
    const condition = metaCondition(line);
    if (!condition) return { map: null, problem: `write “${line}” as key=value.` };
    if (condition.key in map) return { map: null, problem: `the key “${condition.key}” is given twice.` };
    map[condition.key] = condition.equals;
  }
  return { map: lines.length ? map : null };
}

/** State a fact by hand for the user, in an agent's, a session's and a metadata map's scope when
 * given (a blank field sends none: without any the fact is unscoped, docs/scopes.md). Opening the
 * form fills them from the views' filter, so the new fact shows in the filtered list; `onDone`
 * re-reads the list. */
export function AddFact({ user, kinds, onDone }: { user: string; kinds: FactKind[]; onDone: () => void }) {
  const scope = useScope();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState("");
  const [kind, setKind] = useState<FactKind>("OTHER");
  const [agent, setAgent] = useState("");
  const [session, setSession] = useState("");
  const [metadata, setMetadata] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [added, add] = useMutation(ADD);
  const prefilled = Boolean(scope.agent || scope.session || scope.meta);
  const start = () => {
    setAgent(scope.agent ?? "");
    setSession(scope.session ?? "");
    setMetadata(scope.meta ?? "");
    setProblem(null);
    setOpen(true);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const meta = metadataOf(metadata);
    setProblem(meta.problem ?? null);
    if (meta.problem) return;
    const scopes = { agent: agent.trim() || null, session: session.trim() || null, metadata: meta.map };
    const done = await add({ user, text, kind, ...scopes }, RECOUNT);
    if (!done.error) {
      setText("");
      setOpen(false);
      onDone();
    }
  };
  if (!open) return <button type="button" onClick={start}>Add a fact…</button>;
  return (
    <form className="belief-form" onSubmit={submit} aria-label="Add a fact">
      <label>
        Statement
        <input name="text" value={text} onChange={(e) => setText(e.target.value)} required />
      </label>
      <label>
        Kind
        <select name="kind" value={kind} onChange={(e) => setKind(e.target.value as FactKind)}>
          {kinds.map((option) => (
            <option key={option} value={option}>{option.toLowerCase()}</option>
          ))}
        </select>
      </label>
      <label>
        Agent (optional)
        <input name="agent" value={agent} onChange={(e) => setAgent(e.target.value)} />
      </label>
      <label>
        Session (optional)
        <input name="session" value={session} onChange={(e) => setSession(e.target.value)} />
      </label>
      <label>
        Metadata (optional)
        <textarea name="metadata" rows={2} value={metadata} onChange={(e) => { setMetadata(e.target.value); setProblem(null); }}
          placeholder="topic=health" aria-describedby="add-fact-metadata-hint" />
      </label>
      <p className="hint" id="add-fact-metadata-hint">
        One key=value a line; a number, true or false is stored as one.
        {prefilled && " Agent, session and metadata start from the filter in force, so the fact shows in this list."}
      </p>
      {problem && (
        <div className="error" role="alert">
          <strong>Invalid metadata</strong> {problem}
        </div>
      )}
      {added.error && <ErrorBox error={added.error} />}
      <div className="actions">
        <button type="button" onClick={() => setOpen(false)}>Cancel</button>
        <button type="submit" disabled={added.fetching}>Add</button>
      </div>
    </form>
  );
}
