// Starts GraphiQL against this service's own endpoint: queries and mutations POST to the page's
// URL (/graphql), subscriptions use graphql-transport-ws on the same URL. The Headers tab's
// headers go with every request, and in connection_init for subscriptions (the API reads
// `Authorization` there, since browsers cannot set websocket headers).
(function () {
  "use strict";
  var DEFAULT_QUERY = [
    "# recmem-graph: every request needs an API key.",
    "#",
    "# 1. Create one:  .venv/bin/recmem keys create --tenant demo --name me",
    "# 2. Put it in the Headers tab below:  {\"Authorization\": \"Bearer rmk_...\"}",
    "#    The schema (completion, Docs) then loads by itself; the circular-arrow",
    "#    button on the left re-fetches it.",
    "# 3. Run with Ctrl-Enter or the play button.",
    "",
    "query Stats {",
    "  user(id: \"alice\") {",
    "    id",
    "    stats { interactions episodes activeFacts supersededFacts }",
    "  }",
    "}",
    "",
  ].join("\n");
  var DEFAULT_HEADERS = '{\n  "Authorization": "Bearer rmk_..."\n}\n';
  // Typing a key changes the header at every keystroke: wait for a pause before re-fetching.
  var SETTLE_MS = 400;

  var endpoint = new URL(window.location.pathname, window.location.origin);
  var socket = new URL(endpoint.href);
  socket.protocol = endpoint.protocol === "https:" ? "wss:" : "ws:";

  // The Authorization value of the Headers tab's JSON; undefined while it does not parse.
  function authorizationOf(text) {
    try {
      var headers = JSON.parse(text || "{}");
      return String(headers.Authorization || headers.authorization || "");
    } catch (error) {
      return undefined;
    }
  }

  // GraphiQL introspects the schema again whenever its fetcher changes: a new fetcher per
  // Authorization value loads the schema as soon as a key is entered.
  function App() {
    var state = React.useState(authorizationOf(DEFAULT_HEADERS));
    var authorization = state[0];
    var setAuthorization = state[1];
    var timer = React.useRef(0);
    var fetcher = React.useMemo(
      function () {
        return GraphiQL.createFetcher({ url: endpoint.href, subscriptionUrl: socket.href });
      },
      [authorization],
    );
    function onEditHeaders(text) {
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(function () {
        var value = authorizationOf(text);
        if (value !== undefined) setAuthorization(value);
      }, SETTLE_MS);
    }
    return React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: DEFAULT_QUERY,
      defaultHeaders: DEFAULT_HEADERS,
      defaultEditorToolsVisibility: "headers",
      isHeadersEditorEnabled: true,
      onEditHeaders: onEditHeaders,
      // The key stays in this tab only, not in localStorage.
      shouldPersistHeaders: false,
      inputValueDeprecation: true,
    });
  }

  ReactDOM.createRoot(document.getElementById("graphiql")).render(React.createElement(App));
})();
