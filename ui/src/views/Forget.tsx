// Forgetting, with a confirmation that lists what the service says will be erased and rebuilt
// (the preview queries) before the mutation runs.
import { type ReactNode, useEffect, useRef, useState } from "react";
import { useMutation, useQuery } from "urql";
import { count, ErrorBox, Loading } from "../common";
import { graphql } from "../gql";

const INTERACTION_PREVIEW = graphql(`
  query ForgetInteractionPreview($id: ID!) {
    forgetInteractionPreview(id: $id) {
      interactions { id text }
      episodes { id title version }
      facts { id text }
      rebuiltEpisodes { id title version }
      rebuiltFacts { id text }
      restoredFacts { id text }
    }
  }
`);

const FORGET_INTERACTION = graphql(`
  mutation ForgetInteraction($id: ID!) {
    forgetInteraction(id: $id) { interactionIds episodeIds factIds rebuiltEpisodeIds }
  }
`);

const USER_PREVIEW = graphql(`
  query ForgetUserPreview($id: ID!) {
    forgetUserPreview(id: $id) { userId interactions episodes facts runs }
  }
`);

const FORGET_USER = graphql(`
  mutation ForgetUser($id: ID!) {
    forgetUser(id: $id) { userId interactions episodes facts runs }
  }
`);

function Confirm({ title, open, onClose, children }: { title: string; open: boolean; onClose: () => void; children: ReactNode }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return (
    <dialog ref={dialog} onClose={onClose} aria-labelledby="confirm-title" className="confirm">
      <h2 id="confirm-title">{title}</h2>
      {open && children}
    </dialog>
  );
}

function Listing({ label, items }: { label: string; items: { id: string; text?: string; title?: string; version?: number }[] }) {
  if (items.length === 0) return null;
  return (
    <div>
      <h3>
        {label} ({items.length})
      </h3>
      <ul>
        {items.map((item) => (
          <li key={item.id}>
            {item.text ?? `“${item.title}” v${item.version}`} <code>{item.id}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function ForgetInteraction({ id, text, onDone }: { id: string; text: string; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="danger small" onClick={() => setOpen(true)} aria-label={`Forget “${text.slice(0, 40)}”`}>
        Forget
      </button>
      <Confirm title="Forget this interaction?" open={open} onClose={() => setOpen(false)}>
        <InteractionPreview id={id} onCancel={() => setOpen(false)} onDone={() => { setOpen(false); onDone(); }} />
      </Confirm>
    </>
  );
}

function InteractionPreview({ id, onCancel, onDone }: { id: string; onCancel: () => void; onDone: () => void }) {
  const [{ data, fetching, error }] = useQuery({ query: INTERACTION_PREVIEW, variables: { id }, requestPolicy: "network-only" });
  const [result, forget] = useMutation(FORGET_INTERACTION);
  const preview = data?.forgetInteractionPreview;
  return (
    <div data-testid="forget-preview">
      {fetching && <Loading what="what would be erased" />}
      {error && <ErrorBox error={error} />}
      {data && !preview && <p>This interaction no longer exists.</p>}
      {preview && (
        <>
          <p>This erases, for good:</p>
          <Listing label="Interactions" items={preview.interactions} />
          <Listing label="Episode versions" items={preview.episodes} />
          <Listing label="Facts" items={preview.facts} />
          <p>and rebuilds what survives:</p>
          <Listing label="Episodes rebuilt" items={preview.rebuiltEpisodes} />
          <Listing label="Facts restated" items={preview.rebuiltFacts} />
          <Listing label="Facts current again" items={preview.restoredFacts} />
        </>
      )}
      {result.error && <ErrorBox error={result.error} />}
      <div className="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className="danger"
          disabled={!preview || result.fetching}
          onClick={async () => {
            const done = await forget({ id }, { additionalTypenames: ["Interaction", "Episode", "Fact"] });
            if (done.data?.forgetInteraction) onDone();
          }}
        >
          {result.fetching ? "Forgetting…" : "Forget for good"}
        </button>
      </div>
    </div>
  );
}

export function ForgetUser({ user, onDone }: { user: string; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="danger" onClick={() => setOpen(true)}>
        Forget user…
      </button>
      <Confirm title={`Forget ${user} entirely?`} open={open} onClose={() => setOpen(false)}>
        <UserPreview user={user} onCancel={() => setOpen(false)} onDone={() => { setOpen(false); onDone(); }} />
      </Confirm>
    </>
  );
}

function UserPreview({ user, onCancel, onDone }: { user: string; onCancel: () => void; onDone: () => void }) {
  const [{ data, fetching, error }] = useQuery({ query: USER_PREVIEW, variables: { id: user }, requestPolicy: "network-only" });
  const [result, forget] = useMutation(FORGET_USER);
  const preview = data?.forgetUserPreview;
  return (
    <div data-testid="forget-user-preview">
      {fetching && <Loading what="what would be erased" />}
      {error && <ErrorBox error={error} />}
      {preview && (
        <>
          <p>This erases everything memory holds about {preview.userId}, for good:</p>
          <ul>
            <li>{count(preview.interactions, "interaction")}</li>
            <li>{count(preview.episodes, "episode version")}</li>
            <li>{count(preview.facts, "fact")}</li>
            <li>{count(preview.runs, "consolidation run")}</li>
          </ul>
        </>
      )}
      {result.error && <ErrorBox error={result.error} />}
      <div className="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className="danger"
          disabled={!preview || result.fetching}
          onClick={async () => {
            const done = await forget({ id: user }, { additionalTypenames: ["User", "Interaction", "Episode", "Fact"] });
            if (done.data?.forgetUser) onDone();
          }}
        >
          {result.fetching ? "Forgetting…" : "Erase everything"}
        </button>
      </div>
    </div>
  );
}
