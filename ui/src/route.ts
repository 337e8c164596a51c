// Hash routing: the service serves one page at /ui/, every view lives after the `#`.
// A user's views carry the scope filter in the query after the path (scope.ts).
import { useEffect, useState } from "react";
import { readScope, type Scope, writeScope } from "./scope";

export type Route =
  | { view: "users" }
  | { view: "timeline"; user: string; scope?: Scope }
  | { view: "episodes"; user: string; id?: string; scope?: Scope }
  | { view: "facts"; user: string; id?: string; scope?: Scope }
  | { view: "recall"; user: string; scope?: Scope };

export type UserRoute = Exclude<Route, { view: "users" }>;

export function parse(hash: string): Route {
  const raw = hash.replace(/^#\/?/, "");
  const mark = raw.indexOf("?");
  const path = mark < 0 ? raw : raw.slice(0, mark);
  const query = mark < 0 ? "" : raw.slice(mark + 1);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] !== "u" || !parts[1]) return { view: "users" };
  const user = parts[1];
  const scope = readScope(new URLSearchParams(query));
  switch (parts[2]) {
    case "episodes":
      return { view: "episodes", user, id: parts[3], scope };
    case "facts":
      return { view: "facts", user, id: parts[3], scope };
    case "recall":
      return { view: "recall", user, scope };
    default:
      return { view: "timeline", user, scope };
  }
}

export function href(route: Route): string {
  if (route.view === "users") return "#/";
  const base = `#/u/${encodeURIComponent(route.user)}/${route.view}`;
  const path = "id" in route && route.id ? `${base}/${encodeURIComponent(route.id)}` : base;
  const query = writeScope(route.scope);
  return query ? `${path}?${query}` : path;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parse(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parse(window.location.hash));
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
