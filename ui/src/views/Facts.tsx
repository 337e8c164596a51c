// Facts by kind and status; one fact's audit (drawn as a provenance graph and listed as links)
// and the preference-shift timeline of its supersession chain.
import { lazy, Suspense, useEffect, useState } from "react";
import { useQuery } from "urql";
import { Badge, Empty, ErrorBox, Loading, shortId, Time } from "../common";
import { graphql } from "../gql";
import type { FactKind, FactStatus } from "../gql/graphql";
import { useRefreshOnEvent } from "../live";
import { href } from "../route";

const AuditGraph = lazy(() => import("./AuditGraph"));

const LIST = graphql(`
  query FactList($user: ID!, $status: FactStatus, $after: String) {
    user(id: $user) {
      id
      facts(first: 100, after: $after, status: $status) {
        pageInfo { hasNextPage endCursor }
        nodes { id text kind status validFrom validTo }
      }
    }
  }
`);

const DETAIL = graphql(`
  query FactDetail($id: ID!) {
    fact(id: $id) {
      id
      text
      kind
      status
      validFrom
      validTo
      createdAt
      history { id text status validFrom validTo }
      audit {
        episodes {
          episode { id title version current }
          sources { similarity interaction { id seq text occurredAt } }
        }
        interactions { id seq text occurredAt }
        supersedes { reason at fact { id text status validFrom } }
        supersededBy { reason at fact { id text status validFrom } }
        runs { id op model provider status promptTokens completionTokens at produced { id } }
        promptTokens
        completionTokens
      }
    }
  }
`);

const KINDS: FactKind[] = ["PREFERENCE", "ATTRIBUTE", "EVENT", "PLAN", "RELATION", "OTHER"];
const STATUSES: FactStatus[] = ["ACTIVE", "SUPERSEDED", "RETRACTED"];

export function Facts({ user, id }: { user: string; id?: string }) {
  return id ? <FactDetail user={user} id={id} /> : <FactList user={user} />;
}

function statusTone(status: FactStatus) {
  return status === "ACTIVE" ? "ok" : status === "SUPERSEDED" ? "old" : "bad";
}

function FactList({ user }: { user: string }) {
  const [status, setStatus] = useState<FactStatus | "">("");
  const [kind, setKind] = useState<FactKind | "">("");
  // One entry per loaded page (100 facts each): "Load more" adds the last page's end cursor.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  useEffect(() => setCursors([null]), [user, status]);
  return (
    <section aria-labelledby="facts-title">
      <h2 id="facts-title">Facts</h2>
      <div className="toolbar">
        <label htmlFor="fact-kind">Kind</label>
        <select id="fact-kind" value={kind} onChange={(e) => setKind(e.target.value as FactKind | "")}>
          <option value="">all kinds</option>
          {KINDS.map((k) => (
            <option key={k} value={k}>{k.toLowerCase()}</option>
          ))}
        </select>
        <label htmlFor="fact-status">Status</label>
        <select id="fact-status" value={status} onChange={(e) => setStatus(e.target.value as FactStatus | "")}>
          <option value="">any status</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>{s.toLowerCase()}</option>
          ))}
        </select>
      </div>
      <ul className="facts" data-testid="fact-list">
        {cursors.map((after, index) => (
          <FactPage
            key={`${status}-${after ?? "start"}`}
            user={user}
            status={status}
            kind={kind}
            after={after}
            first={index === 0}
            last={index === cursors.length - 1}
            onMore={(cursor) => setCursors((current) => (current.includes(cursor) ? current : [...current, cursor]))}
          />
        ))}
      </ul>
    </section>
  );
}

type FactPageProps = {
  user: string;
  status: FactStatus | "";
  kind: FactKind | "";
  after: string | null;
  first: boolean;
  last: boolean;
  onMore: (cursor: string) => void;
};

function FactPage({ user, status, kind, after, first, last, onMore }: FactPageProps) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: LIST, variables: { user, status: status || null, after } });
  useRefreshOnEvent(() => refetch({ requestPolicy: "network-only" }));
  const connection = data?.user?.facts;
  // The API filters by status; kind is filtered here (the connection has no kind argument).
  const facts = connection?.nodes.filter((fact) => !kind || fact.kind === kind) ?? [];
  const next = last && connection?.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
  if (error) return <li><ErrorBox error={error} retry={() => refetch({ requestPolicy: "network-only" })} /></li>;
  if (fetching && !data) return <li><Loading what="facts" /></li>;
  return (
    <>
      {first && !next && facts.length === 0 && <li><Empty>No facts with these filters.</Empty></li>}
      {facts.map((fact) => (
        <li key={fact.id}>
          <a href={href({ view: "facts", user, id: fact.id })}>{fact.text}</a> <Badge tone="info">{fact.kind.toLowerCase()}</Badge>{" "}
          <Badge tone={statusTone(fact.status)}>{fact.status.toLowerCase()}</Badge>{" "}
          <small>
            <Time at={fact.validFrom} /> → {fact.validTo ? <Time at={fact.validTo} /> : "now"}
          </small>
        </li>
      ))}
      {next && (
        <li className="more">
          <button type="button" onClick={() => onMore(next)}>
            Load more facts
          </button>
        </li>
      )}
    </>
  );
}

function FactDetail({ user, id }: { user: string; id: string }) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: DETAIL, variables: { id } });
  useRefreshOnEvent(() => refetch({ requestPolicy: "network-only" }));
  const fact = data?.fact;
  if (error) return <ErrorBox error={error} retry={() => refetch({ requestPolicy: "network-only" })} />;
  if (fetching && !data) return <Loading what="the fact's audit" />;
  if (!fact) return <Empty>This fact no longer exists.</Empty>;
  const audit = fact.audit;
  return (
    <section aria-labelledby="fact-title" data-testid="fact-detail">
      <p>
        <a href={href({ view: "facts", user })}>← All facts</a>
      </p>
      <h2 id="fact-title">“{fact.text}”</h2>
      <p>
        <Badge tone="info">{fact.kind.toLowerCase()}</Badge> <Badge tone={statusTone(fact.status)}>{fact.status.toLowerCase()}</Badge> valid{" "}
        <Time at={fact.validFrom} /> → {fact.validTo ? <Time at={fact.validTo} /> : "now"}; cost {audit.promptTokens} prompt +{" "}
        {audit.completionTokens} completion tokens
      </p>

      <h3>Preference shift</h3>
      <ol className="shift" data-testid="fact-history">
        {fact.history.map((step) => (
          <li key={step.id} className={step.id === fact.id ? "here" : undefined}>
            <span className="when">
              <Time at={step.validFrom} /> → {step.validTo ? <Time at={step.validTo} /> : "now"}
            </span>{" "}
            {step.id === fact.id ? <strong>{step.text}</strong> : <a href={href({ view: "facts", user, id: step.id })}>{step.text}</a>}{" "}
            <Badge tone={statusTone(step.status)}>{step.status.toLowerCase()}</Badge>
          </li>
        ))}
      </ol>

      <h3>Provenance graph</h3>
      <Suspense fallback={<Loading what="the graph" />}>
        <AuditGraph user={user} fact={fact} />
      </Suspense>

      <div className="audit-lists">
        <div>
          <h3>Replaced (supersedes)</h3>
          {audit.supersedes.length === 0 ? <p className="muted">Nothing: it is the first of its chain.</p> : (
            <ul data-testid="supersedes">
              {audit.supersedes.map((change) => (
                <li key={change.fact.id}>
                  <a href={href({ view: "facts", user, id: change.fact.id })}>{change.fact.text}</a> {change.reason && <em>— {change.reason}</em>}
                </li>
              ))}
            </ul>
          )}
          <h3>Replaced by</h3>
          {audit.supersededBy.length === 0 ? <p className="muted">Nothing: it still holds.</p> : (
            <ul data-testid="superseded-by">
              {audit.supersededBy.map((change) => (
                <li key={change.fact.id}>
                  <a href={href({ view: "facts", user, id: change.fact.id })}>{change.fact.text}</a> {change.reason && <em>— {change.reason}</em>}
                </li>
              ))}
            </ul>
          )}
        </div>
        <div>
          <h3>Derived from</h3>
          <ul>
            {audit.episodes.map(({ episode, sources }) => (
              <li key={episode.id}>
                <a href={href({ view: "episodes", user, id: episode.id })}>
                  “{episode.title}” v{episode.version}
                </a>{" "}
                from {sources.length} turns
              </li>
            ))}
          </ul>
          <h3>Stated in</h3>
          <ul>
            {audit.interactions.map((turn) => (
              <li key={turn.id}>
                #{turn.seq} “{turn.text}”
              </li>
            ))}
          </ul>
          <h3>Runs</h3>
          <ul>
            {audit.runs.map((run) => (
              <li key={run.id}>
                {run.op} · {run.model} ({run.provider}) · {run.promptTokens}+{run.completionTokens} tokens · <Time at={run.at} />{" "}
                <code>{shortId(run.id)}</code>
              </li>
            ))}
          </ul>
        </div>
      </div>
    </section>
  );
}
