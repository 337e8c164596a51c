// The shell: sign-in, then the tenant in the header and the view the hash names.
import { useCallback, useEffect, useMemo, useState } from "react";
import { Provider, useQuery } from "urql";
import { clearKey, storedKey, storeKey } from "./auth";
import { EXPIRED, makeClient } from "./client";
import { graphql } from "./gql";
import { href, useRoute } from "./route";
import { SignIn } from "./views/SignIn";
import { UserPage } from "./views/UserPage";
import { Users } from "./views/Users";

const VIEWER = graphql(`
  query Viewer {
    viewer { tenantId tenantName }
  }
`);

export function App() {
  const [key, setKey] = useState(storedKey);
  const signOut = useCallback((notice?: string) => {
    clearKey(notice);
    setKey(null);
  }, []);
  const session = useMemo(() => (key ? makeClient(key, () => signOut(EXPIRED)) : null), [key, signOut]);
  useEffect(() => () => session?.dispose(), [session]);

  if (!key || !session) {
    return (
      <SignIn
        onSignedIn={(k) => {
          storeKey(k);
          setKey(k);
        }}
      />
    );
  }
  return (
    <Provider value={session.client}>
      <Shell onSignOut={() => signOut()} />
    </Provider>
  );
}

function Shell({ onSignOut }: { onSignOut: () => void }) {
  const route = useRoute();
  const [{ data }] = useQuery({ query: VIEWER });
  // A new view starts at its top (the browser keeps the scroll position across hash changes).
  const where = JSON.stringify(route);
  useEffect(() => {
    // A block, not an arrow's value: newer browsers' scrollTo returns a promise, which React would
    // take for the effect's cleanup.
    window.scrollTo(0, 0);
  }, [where]);
  const tenant = data?.viewer;
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <a className="brand" href={href({ view: "users" })}>
          recmem explorer
        </a>
        <span className="tenant" data-testid="tenant">
          Tenant: <strong>{tenant ? tenant.tenantName ?? tenant.tenantId : "…"}</strong>
        </span>
        <button type="button" className="link" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <div id="main" tabIndex={-1}>
        {route.view === "users" ? <Users /> : <UserPage route={route} />}
      </div>
    </>
  );
}
