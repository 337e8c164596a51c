// Hash routing: the service serves one page at /ui/, every view lives after the `#`.
import { useEffect, useState } from "react";

export type Route =
  | { view: "users" }
  | { view: "timeline"; user: string }
  | { view: "episodes"; user: string; id?: string }
  | { view: "facts"; user: string; id?: string }
  | { view: "recall"; user: string };

export function parse(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] !== "u" || !parts[1]) return { view: "users" };
  const user = parts[1];
  switch (parts[2]) {
    case "episodes":
      return { view: "episodes", user, id: parts[3] };
    case "facts":
      return { view: "facts", user, id: parts[3] };
    case "recall":
      return { view: "recall", user };
    default:
      return { view: "timeline", user };
  }
}

export function href(route: Route): string {
  if (route.view === "users") return "#/";
  const base = `#/u/${encodeURIComponent(route.user)}/${route.view}`;
  return "id" in route && route.id ? `${base}/${encodeURIComponent(route.id)}` : base;
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
