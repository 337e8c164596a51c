// Forgetting, with a confirmation that lists what the service says will be erased and rebuilt
// (the preview queries) before the mutation runs.
import { type ReactNode, useEffect, useRef, useState } from "react";
import { type CombinedError, useMutation, useQuery } from "urql";
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

type Steps = { onCancel: () => void; onDone: () => void };

/** A button that opens the confirmation with `preview` in it; `onDone` runs once it has forgotten. */
function ForgetButton({ label, className, ariaLabel, title, onDone, preview }: {
  label: string;
  className: string;
  ariaLabel?: string;
  title: string;
  onDone: () => void;
  preview: (steps: Steps) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const close = () => setOpen(false);
  return (
    <>
      <button type="button" className={className} onClick={() => setOpen(true)} aria-label={ariaLabel}>
        {label}
      </button>
      <Confirm title={title} open={open} onClose={close}>
        {preview({ onCancel: close, onDone: () => { close(); onDone(); } })}
      </Confirm>
    </>
  );
}

type Outcome = { fetching: boolean; error?: CombinedError };

/** The confirmation's body: what the preview query says will go (`children`), then Cancel and the
 * button that forgets (`onForget`), usable once the preview is `ready`. */
function PreviewBody({ testId, preview, ready, result, label, onCancel, onForget, children }: {
  testId: string;
  preview: Outcome;
  ready: boolean;
  result: Outcome;
  label: string;
  onCancel: () => void;
  onForget: () => void;
  children: ReactNode;
}) {
  return (
    <div data-testid={testId}>
      {preview.fetching && <Loading what="what would be erased" />}
      {preview.error && <ErrorBox error={preview.error} />}
      {children}
      {result.error && <ErrorBox error={result.error} />}
      <div className="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" disabled={!ready || result.fetching} onClick={onForget}>
          {result.fetching ? "Forgetting…" : label}
        </button>
      </div>
    </div>
  );
}

export function ForgetInteraction({ id, text, onDone }: { id: string; text: string; onDone: () => void }) {
  return (
    <ForgetButton
      label="Forget"
      className="danger small"
      ariaLabel={`Forget “${text.slice(0, 40)}”`}
      title="Forget this interaction?"
      onDone={onDone}
      preview={(steps) => <InteractionPreview id={id} {...steps} />}
    />
  );
}

function InteractionPreview({ id, onCancel, onDone }: Steps & { id: string }) {
  const [state] = useQuery({ query: INTERACTION_PREVIEW, variables: { id }, requestPolicy: "network-only" });
  const [result, forget] = useMutation(FORGET_INTERACTION);
  const preview = state.data?.forgetInteractionPreview;
  const erase = async () => {
    const done = await forget({ id }, { additionalTypenames: ["Interaction", "Episode", "Fact", "UserStats"] });
    if (done.data?.forgetInteraction) onDone();
  };
  return (
    <PreviewBody testId="forget-preview" preview={state} ready={!!preview} result={result} label="Forget for good" onCancel={onCancel} onForget={erase}>
      {state.data && !preview && <p>This interaction no longer exists.</p>}
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
    </PreviewBody>
  );
}

export function ForgetUser({ user, onDone }: { user: string; onDone: () => void }) {
  return (
    <ForgetButton
      label="Forget user…"
      className="danger"
      title={`Forget ${user} entirely?`}
      onDone={onDone}
      preview={(steps) => <UserPreview user={user} {...steps} />}
    />
  );
}

function UserPreview({ user, onCancel, onDone }: Steps & { user: string }) {
  const [state] = useQuery({ query: USER_PREVIEW, variables: { id: user }, requestPolicy: "network-only" });
  const [result, forget] = useMutation(FORGET_USER);
  const preview = state.data?.forgetUserPreview;
  const erase = async () => {
    const done = await forget({ id: user }, { additionalTypenames: ["User", "Interaction", "Episode", "Fact"] });
    if (done.data?.forgetUser) onDone();
  };
  return (
    <PreviewBody testId="forget-user-preview" preview={state} ready={!!preview} result={result} label="Erase everything" onCancel={onCancel} onForget={erase}>
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
    </PreviewBody>
  );
}
