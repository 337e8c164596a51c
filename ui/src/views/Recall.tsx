// The recall playground: a query, an as-of time, the question's day, per-layer budgets and a token
// budget, narrowed by the scope filter; the plan the planner read, the three layers with scores and
// provenance, and the context.
import { type FormEvent, type ReactNode, useState } from "react";
import { useQuery } from "urql";
import { Empty, ErrorBox, Loading, Time } from "../common";
import { graphql } from "../gql";
import type { RecallFilter } from "../gql/graphql";
import { ViewLink } from "./Scope";

const RECALL = graphql(`
  query RecallPlayground($user: ID!, $query: String!, $asOf: DateTime, $askedAt: DateTime, $budget: BudgetInput, $filter: RecallFilter) {
    recall(userId: $user, query: $query, asOf: $asOf, askedAt: $askedAt, budget: $budget, filter: $filter) {
      query
      asOf
      plan { source fallback notes promptTokens completionTokens askedAt window { start end text } order kind entities unresolved }
      subconscious { score rankScore interaction { id seq text occurredAt consolidated } }
      episodic { score rankScore episode { id title version summary } sources { id seq text } }
      semantic { score rankScore fact { id text kind status validFrom validTo } sources { id seq text } }
      context { text tokens budget items { layer id line tokens score rankScore sourceIds } }
    }
  }
`);

type Form = { query: string; asOf: string; askedAt: string; subconscious: number; episodic: number; semantic: number; tokens: string };
type Asked = {
  query: string;
  asOf: string | null;
  askedAt: string | null;
  budget: { subconscious: number; episodic: number; semantic: number; tokens: number | null };
};

// A datetime-local value ("2024-03-01T09:00", seconds optional). The field takes years past 9999
// too ("10000-01-01T00:00"), which no DateTime of the API can hold.
const LOCAL = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?$/;

/** A field's value as an ISO instant: null when empty, undefined when it is no time the API takes.
 * The field has no zone and is labelled UTC, so it is read as UTC. */
function utc(value: string): string | null | undefined {
  if (!value) return null;
  const match = LOCAL.exec(value);
  if (!match || Number(match[1]) < 1) return undefined;
  const at = new Date(`${value.length === 16 ? `${value}:00` : value}Z`);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/** What to ask, or what is wrong with the form (shown in place of a result). */
function asked(form: Form): Asked | { problem: string } {
  const asOf = utc(form.asOf);
  const askedAt = utc(form.askedAt);
  const wrong = [asOf === undefined && "As of (UTC)", askedAt === undefined && "Asked on (UTC)"].filter(Boolean);
  if (wrong.length > 0) return { problem: `${wrong.join(" and ")}: not a date and time memory can read (years 0001 to 9999).` };
  const tokens = form.tokens.trim() ? Number(form.tokens) : null;
  return {
    query: form.query,
    asOf: asOf ?? null,
    askedAt: askedAt ?? null,
    budget: { subconscious: form.subconscious, episodic: form.episodic, semantic: form.semantic, tokens },
  };
}

/** The playground; `filter` (the scope bar's) narrows every recall it asks, the last one included. */
export function RecallPlayground({ user, filter }: { user: string; filter: RecallFilter | null }) {
  const [form, setForm] = useState<Form>({ query: "", asOf: "", askedAt: "", subconscious: 10, episodic: 5, semantic: 10, tokens: "400" });
  // The last request, or what was wrong with the form when Recall was pressed (no stale result stays).
  const [request, setRequest] = useState<Asked | { problem: string } | null>(null);
  const set = (patch: Partial<Form>) => setForm((current) => ({ ...current, ...patch }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setRequest(asked(form));
  };
  return (
    <section aria-labelledby="recall-title">
      <h2 id="recall-title">Recall playground</h2>
      <form className="recall-form" onSubmit={submit}>
        <label>
          Query
          <input value={form.query} onChange={(e) => set({ query: e.target.value })} required name="query" />
        </label>
        <label>
          As of (UTC)
          <input type="datetime-local" value={form.asOf} onChange={(e) => set({ asOf: e.target.value })} name="asOf" />
        </label>
        <label>
          Asked on (UTC)
          <input type="datetime-local" value={form.askedAt} onChange={(e) => set({ askedAt: e.target.value })} name="askedAt" />
        </label>
        <fieldset>
          <legend>Budget</legend>
          {(["subconscious", "episodic", "semantic"] as const).map((layer) => (
            <label key={layer}>
              {layer}
              <input type="number" min={0} max={100} value={form[layer]} onChange={(e) => set({ [layer]: Number(e.target.value) })} name={layer} />
            </label>
          ))}
          <label>
            tokens
            <input type="number" min={1} max={200000} value={form.tokens} onChange={(e) => set({ tokens: e.target.value })} name="tokens" placeholder="none" />
          </label>
        </fieldset>
        <button type="submit">Recall</button>
      </form>
      {request === null ? (
        <Empty>Ask something to see what memory would hand a model.</Empty>
      ) : "problem" in request ? (
        <div className="error" role="alert" data-testid="recall-problem">
          <strong>Invalid input</strong> {request.problem}
        </div>
      ) : (
        <RecallResult user={user} request={request} filter={filter} />
      )}
    </section>
  );
}

/** One layer's hits, best first by the score they were ranked by (reciprocal-rank fusion of the
 * similarity and lexical rankings), each with that score before what `children` shows of it; the
 * cosine similarity is its tooltip. */
function Layer<Hit extends { score: number; rankScore: number }>({ title, testId, hits, idOf, children }: {
  title: string;
  testId: string;
  hits: Hit[];
  idOf: (hit: Hit) => string;
  children: (hit: Hit) => ReactNode;
}) {
  return (
    <div>
      <h3>{title}</h3>
      {hits.length === 0 && <p className="muted">none</p>}
      <ol data-testid={testId}>
        {[...hits].sort((a, b) => b.rankScore - a.rankScore).map((hit) => (
          <li key={idOf(hit)} data-rank-score={hit.rankScore}>
            <span className="score" title={`rank score (fused); cosine similarity ${hit.score.toFixed(3)}`}>
              {hit.rankScore.toFixed(4)}
            </span>{" "}
            {children(hit)}
          </li>
        ))}
      </ol>
    </div>
  );
}

/** The turns a hit rests on: " from #3, #5". */
function Provenance({ sources }: { sources: { seq: number }[] }) {
  return <small className="prov"> from {sources.map((s) => `#${s.seq}`).join(", ") || "—"}</small>;
}

function RecallResult({ user, request, filter }: { user: string; request: Asked; filter: RecallFilter | null }) {
  const [{ data, fetching, error }] = useQuery({ query: RECALL, variables: { user, ...request, filter }, requestPolicy: "network-only" });
  if (error) return <ErrorBox error={error} />;
  if (fetching || !data) return <Loading what="recall" />;
  const recall = data.recall;
  if (!recall) return <Empty>Nothing recalled.</Empty>;
  return (
    <div data-testid="recall-result">
      <p className="muted">
        “{recall.query}”{recall.asOf ? <> as of <Time at={recall.asOf} /></> : " now"}
      </p>
      {recall.plan && <PlanView plan={recall.plan} />}
      <div className="layers">
        <Layer title="Semantic (facts)" testId="layer-semantic" hits={recall.semantic} idOf={(hit) => hit.fact.id}>
          {(hit) => (
            <>
              <ViewLink to={{ view: "facts", user, id: hit.fact.id }}>{hit.fact.text}</ViewLink>
              <Provenance sources={hit.sources} />
            </>
          )}
        </Layer>
        <Layer title="Episodic" testId="layer-episodic" hits={recall.episodic} idOf={(hit) => hit.episode.id}>
          {(hit) => (
            <>
              <ViewLink to={{ view: "episodes", user, id: hit.episode.id }}>
                “{hit.episode.title}” v{hit.episode.version}
              </ViewLink>
              <Provenance sources={hit.sources} />
            </>
          )}
        </Layer>
        <Layer title="Subconscious (turns)" testId="layer-subconscious" hits={recall.subconscious} idOf={(hit) => hit.interaction.id}>
          {(hit) => <>#{hit.interaction.seq} “{hit.interaction.text}”</>}
        </Layer>
      </div>
      <h3>Assembled context</h3>
      {recall.context ? (
        <>
          <p className="muted">
            {recall.context.tokens} of {recall.context.budget} tokens, {recall.context.items.length} lines
          </p>
          <pre className="context" data-testid="recall-context" tabIndex={0}>
            {recall.context.text}
          </pre>
        </>
      ) : (
        <p className="muted">Give a token budget to assemble one.</p>
      )}
    </div>
  );
}

type PlanShown = {
  source: string;
  fallback?: string | null;
  notes: string[];
  promptTokens: number;
  completionTokens: number;
  askedAt: string;
  window?: { start: string; end: string; text: string } | null;
  order?: string | null;
  kind: string;
  entities: string[];
  unresolved: string[];
};

/** What the planner read from the query (rules, or one LLM call with RECMEM_PLANNER=llm): the day
 * asked, a window, order, kind, names; for the LLM planner its tokens, and why it fell back. */
function PlanView({ plan }: { plan: PlanShown }) {
  return (
    <dl className="plan" data-testid="recall-plan">
      <dt>asked</dt>
      <dd><Time at={plan.askedAt} /></dd>
      <dt>window</dt>
      <dd>{plan.window ? <>“{plan.window.text}”: <Time at={plan.window.start} /> to <Time at={plan.window.end} /></> : "none"}</dd>
      <dt>order</dt>
      <dd>{plan.order ? plan.order.toLowerCase() : "by relevance"}</dd>
      <dt>kind</dt>
      <dd>{plan.kind.toLowerCase()}</dd>
      {plan.entities.length > 0 && (<><dt>names</dt><dd>{plan.entities.join(", ")}</dd></>)}
      {plan.unresolved.length > 0 && (<><dt>not dated</dt><dd>{plan.unresolved.join(", ")}</dd></>)}
      <dt>planner</dt>
      <dd>
        {plan.source}
        {plan.fallback && <> (fallback: {plan.fallback})</>}
        {plan.promptTokens + plan.completionTokens > 0 && <>, {plan.promptTokens} + {plan.completionTokens} tokens</>}
      </dd>
      {plan.notes.length > 0 && (<><dt>dropped</dt><dd>{plan.notes.join("; ")}</dd></>)}
    </dl>
  );
}
