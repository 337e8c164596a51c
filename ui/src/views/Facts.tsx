// Facts by kind and status; one fact's audit (drawn as a provenance graph and listed as links)
// and the preference-shift timeline of its supersession chain.
import { lazy, type ReactNode, Suspense, useState } from "react";
import { Badge, count, Empty, ErrorBox, Loading, shortId, Time, Validity } from "../common";
import { graphql } from "../gql";
import type { FactDetailQuery, FactKind, FactStatus, RecallFilter } from "../gql/graphql";
import { useLiveQuery } from "../live";
import { LoadMore, nextCursor, type PageSlot, useCursorPages } from "../paging";
import { AddFact, Changes, FactActions } from "./Beliefs";
import { ViewLink } from "./Scope";

const AuditGraph = lazy(() => import("./AuditGraph"));

const LIST = graphql(`
  query FactList($user: ID!, $status: FactStatus, $kind: FactKind, $after: String, $filter: RecallFilter) {
    user(id: $user) {
      id
      facts(first: 100, after: $after, status: $status, kind: $kind, filter: $filter) {
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
        runs { id op model provider status promptTokens completionTokens at triggeredBy rule produced { id } }
        corrections { id op trigger reason by at }
        promptTokens
        completionTokens
      }
    }
  }
`);

type Audit = NonNullable<FactDetailQuery["fact"]>["audit"];

const KINDS: FactKind[] = ["PREFERENCE", "ATTRIBUTE", "EVENT", "PLAN", "RELATION", "OTHER"];
const STATUSES: FactStatus[] = ["ACTIVE", "SUPERSEDED", "RETRACTED"];

export function Facts({ user, id, filter }: { user: string; id?: string; filter: RecallFilter | null }) {
  // Keyed by the fact: a navigation to another fact (a link, the hash, history) starts its page
  // afresh, so that no form left open on one fact stays open on the next.
  return id ? <FactDetail key={id} user={user} id={id} /> : <FactList user={user} filter={filter} />;
}

function statusTone(status: FactStatus) {
  return status === "ACTIVE" ? "ok" : status === "SUPERSEDED" ? "old" : "bad";
}

/** A filter of the list: a labelled choice of one of `options`, or of all ("" is "all"). */
function Filter<Option extends string>({ id, label, all, options, value, onChange }: {
  id: string;
  label: string;
  all: string;
  options: Option[];
  value: Option | "";
  onChange: (value: Option | "") => void;
}) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value as Option | "")}>
        <option value="">{all}</option>
        {options.map((option) => (
          <option key={option} value={option}>{option.toLowerCase()}</option>
        ))}
      </select>
    </>
  );
}

function FactList({ user, filter }: { user: string; filter: RecallFilter | null }) {
  const [status, setStatus] = useState<FactStatus | "">("");
  const [kind, setKind] = useState<FactKind | "">("");
  // Bumped by each fact added by hand, so that the list is read again.
  const [added, setAdded] = useState(0);
  // One slot per loaded page (100 facts each); the filters are the API's, so a change starts over.
  const scopeKey = JSON.stringify(filter);
  const { pages, more } = useCursorPages(JSON.stringify([user, status, kind, added, scopeKey]));
  return (
    <section aria-labelledby="facts-title">
      <h2 id="facts-title">Facts</h2>
      <div className="toolbar">
        <Filter id="fact-kind" label="Kind" all="all kinds" options={KINDS} value={kind} onChange={setKind} />
        <Filter id="fact-status" label="Status" all="any status" options={STATUSES} value={status} onChange={setStatus} />
        <AddFact user={user} kinds={KINDS} onDone={() => setAdded((n) => n + 1)} />
      </div>
      <ul className="facts" data-testid="fact-list">
        {pages.map((slot) => (
          <FactPage
            key={`${status}-${kind}-${added}-${scopeKey}-${slot.after ?? "start"}`}
            slot={slot}
            user={user}
            status={status}
            kind={kind}
            filter={filter}
            onMore={more}
          />
        ))}
      </ul>
    </section>
  );
}

type FactPageProps = {
  slot: PageSlot;
  user: string;
  status: FactStatus | "";
  kind: FactKind | "";
  filter: RecallFilter | null;
  onMore: (cursor: string) => void;
};

function FactPage({ slot, user, status, kind, filter, onMore }: FactPageProps) {
  const variables = { user, status: status || null, kind: kind || null, after: slot.after, filter };
  const [{ data, fetching, error }, reread] = useLiveQuery({ query: LIST, variables });
  const connection = data?.user?.facts;
  const facts = connection?.nodes ?? [];
  const next = nextCursor(slot, connection);
  if (error) return <li><ErrorBox error={error} retry={reread} /></li>;
  if (fetching && !data) return <li><Loading what="facts" /></li>;
  return (
    <>
      {slot.first && !next && facts.length === 0 && <li><Empty>No facts with these filters.</Empty></li>}
      {facts.map((fact) => (
        <li key={fact.id}>
          <ViewLink to={{ view: "facts", user, id: fact.id }}>{fact.text}</ViewLink> <Badge tone="info">{fact.kind.toLowerCase()}</Badge>{" "}
          <Badge tone={statusTone(fact.status)}>{fact.status.toLowerCase()}</Badge>{" "}
          <small>
            <Validity from={fact.validFrom} to={fact.validTo} />
          </small>
        </li>
      ))}
      {next && <LoadMore label="Load more facts" onClick={() => onMore(next)} />}
    </>
  );
}

type Supersession = Audit["supersedes"][number];

/** One side of the fact's SUPERSEDES chain: the facts it replaced, or those that replaced it. */
function Supersessions({ title, none, testId, user, changes }: { title: string; none: ReactNode; testId: string; user: string; changes: Supersession[] }) {
  return (
    <>
      <h3>{title}</h3>
      {changes.length === 0 ? <p className="muted" data-testid={testId}>{none}</p> : (
        <ul data-testid={testId}>
          {changes.map((change) => (
            <li key={change.fact.id}>
              <ViewLink to={{ view: "facts", user, id: change.fact.id }}>{change.fact.text}</ViewLink> {change.reason && <em>— {change.reason}</em>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

type Shown = NonNullable<FactDetailQuery["fact"]>;

/** Why no fact replaced this one: it still holds, it was retracted (when, by whom, why: its
 * latest retraction run), or it no longer holds for another reason. */
function NotReplaced({ fact }: { fact: Shown }) {
  if (fact.status === "ACTIVE") return <>Nothing: it still holds.</>;
  if (fact.status === "SUPERSEDED") return <>Nothing that remains: it no longer holds.</>;
  const retraction = fact.audit.corrections.filter((run) => run.trigger === "retraction").at(-1);
  if (!retraction) return <>Nothing: it was retracted (<Time at={fact.validTo} />) and no longer holds.</>;
  return (
    <>
      Nothing: it was retracted <Time at={retraction.at} /> by <span className="who">{retraction.by}</span>
      {retraction.reason && <> (“{retraction.reason}”)</>} and no longer holds.
    </>
  );
}

function FactDetail({ user, id }: { user: string; id: string }) {
  const [{ data, fetching, error }, reread] = useLiveQuery({ query: DETAIL, variables: { id } });
  const fact = data?.fact;
  if (error) return <ErrorBox error={error} retry={reread} />;
  if (fetching && !data) return <Loading what="the fact's audit" />;
  if (!fact) return <Empty>This fact no longer exists.</Empty>;
  const audit = fact.audit;
  return (
    <section aria-labelledby="fact-title" data-testid="fact-detail">
      <p>
        <ViewLink to={{ view: "facts", user }}>← All facts</ViewLink>
      </p>
      <h2 id="fact-title">“{fact.text}”</h2>
      <p>
        <Badge tone="info">{fact.kind.toLowerCase()}</Badge> <Badge tone={statusTone(fact.status)}>{fact.status.toLowerCase()}</Badge> valid{" "}
        <Validity from={fact.validFrom} to={fact.validTo} />; cost {audit.promptTokens} prompt +{" "}
        {audit.completionTokens} completion tokens
      </p>
      {fact.status === "ACTIVE" && <FactActions key={fact.id} id={fact.id} text={fact.text} onDone={reread} />}

      <h3>Preference shift</h3>
      <ol className="shift" data-testid="fact-history">
        {fact.history.map((step) => (
          <li key={step.id} className={step.id === fact.id ? "here" : undefined}>
            <span className="when">
              <Validity from={step.validFrom} to={step.validTo} />
            </span>{" "}
            {step.id === fact.id ? <strong>{step.text}</strong> : <ViewLink to={{ view: "facts", user, id: step.id }}>{step.text}</ViewLink>}{" "}
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
          <Supersessions title="Replaced (supersedes)" none="Nothing: it is the first of its chain." testId="supersedes" user={user} changes={audit.supersedes} />
          <Supersessions title="Replaced by" none={<NotReplaced fact={fact} />} testId="superseded-by" user={user} changes={audit.supersededBy} />
          <Changes corrections={audit.corrections} />
        </div>
        <div>
          <h3>Derived from</h3>
          {audit.episodes.length === 0 ? <p className="muted" data-testid="derived-from">none</p> : (
            <ul data-testid="derived-from">
              {audit.episodes.map(({ episode, sources }) => (
                <li key={episode.id}>
                  <ViewLink to={{ view: "episodes", user, id: episode.id }}>
                    “{episode.title}” v{episode.version}
                  </ViewLink>{" "}
                  from {count(sources.length, "turn")}
                </li>
              ))}
            </ul>
          )}
          <h3>Stated in</h3>
          {audit.interactions.length === 0 ? <p className="muted" data-testid="stated-in">none</p> : (
            <ul data-testid="stated-in">
              {audit.interactions.map((turn) => (
                <li key={turn.id}>
                  #{turn.seq} “{turn.text}”
                </li>
              ))}
            </ul>
          )}
          <h3>Runs</h3>
          <ul>
            {audit.runs.map((run) => (
              <li key={run.id}>
                {run.op} · {run.model} ({run.provider}) · {run.promptTokens}+{run.completionTokens} tokens · <Time at={run.at} />{" "}
                {run.triggeredBy ? <span data-testid="run-trigger">· {run.triggeredBy}{run.rule ? ` (${run.rule})` : ""} </span> : null}
                <code>{shortId(run.id)}</code>
              </li>
            ))}
          </ul>
        </div>
      </div>
    </section>
  );
}
