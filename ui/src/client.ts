// One urql client per signed-in key: queries over HTTP, the consolidations subscription over
// graphql-ws on the same origin. An UNAUTHENTICATED answer or a 4403 close signs the tab out.
import { createClient as createWsClient } from "graphql-ws";
import { Client, type CombinedError, cacheExchange, fetchExchange, mapExchange, subscriptionExchange } from "urql";

export const EXPIRED = "Your API key was refused (expired or revoked). Sign in again.";

export function isUnauthenticated(error: CombinedError | undefined): boolean {
  if (!error) return false;
  const status = (error.response as Response | undefined)?.status;
  return status === 401 || error.graphQLErrors.some((e) => e.extensions?.code === "UNAUTHENTICATED");
}

export function errorCode(error: CombinedError): string | undefined {
  const code = error.graphQLErrors.map((e) => e.extensions?.code).find(Boolean);
  if (typeof code === "string") return code;
  const status = (error.response as Response | undefined)?.status;
  return status === 503 ? "UNAVAILABLE" : undefined;
}

function socketUrl(): string {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${window.location.host}/graphql`;
}

export function makeClient(key: string, onRefused: () => void): { client: Client; dispose: () => void } {
  const ws = createWsClient({
    url: socketUrl(),
    // Browsers cannot set websocket headers: the key goes in connection_init.
    connectionParams: { Authorization: `Bearer ${key}` },
    lazy: true,
    retryAttempts: 5,
    shouldRetry: (event) => !(event instanceof CloseEvent && (event.code === 4403 || event.code === 4401)),
    on: {
      closed: (event) => {
        const code = (event as CloseEvent | undefined)?.code;
        if (code === 4403 || code === 4401) onRefused();
      },
    },
  });
  const client = new Client({
    url: "/graphql",
    fetchOptions: () => ({ headers: { authorization: `Bearer ${key}` } }),
    requestPolicy: "cache-and-network",
    exchanges: [
      mapExchange({
        onError(error) {
          if (isUnauthenticated(error)) onRefused();
        },
      }),
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query || "" };
          return {
            subscribe(sink) {
              const unsubscribe = ws.subscribe(input, sink);
              return { unsubscribe };
            },
          };
        },
      }),
    ],
  });
  return { client, dispose: () => void ws.dispose() };
}
