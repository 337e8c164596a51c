// The fact's provenance drawn with cytoscape: fact -> episode versions -> interactions, the facts
// it replaced and that replaced it (SUPERSEDES), and the runs that produced them. Clicking a fact
// or an episode opens it; the same links are listed beside the graph for keyboard use.
import cytoscape, { type ElementDefinition } from "cytoscape";
import { useEffect, useRef } from "react";
import type { FactDetailQuery } from "../gql/graphql";
import { useViewHref } from "./Scope";

type Fact = NonNullable<FactDetailQuery["fact"]>;

function clip(text: string, size = 48): string {
  return text.length > size ? `${text.slice(0, size - 1)}…` : text;
}

export function elements(fact: Fact): ElementDefinition[] {
  const nodes = new Map<string, ElementDefinition>();
  const edges: ElementDefinition[] = [];
  const node = (id: string, label: string, kind: string) => {
    if (!nodes.has(id)) nodes.set(id, { data: { id, label, kind }, classes: kind });
  };
  const edge = (source: string, target: string, label: string) =>
    edges.push({ data: { id: `${source}>${target}:${label}`, source, target, label }, classes: label === "SUPERSEDES" ? "supersedes" : "" });

  node(fact.id, clip(fact.text), "fact focus");
  for (const { episode, sources } of fact.audit.episodes) {
    node(episode.id, `${clip(episode.title, 30)} v${episode.version}`, "episode");
    edge(fact.id, episode.id, "derived from");
    for (const source of sources) {
      node(source.interaction.id, `#${source.interaction.seq} ${clip(source.interaction.text, 30)}`, "interaction");
      edge(episode.id, source.interaction.id, "source");
    }
  }
  for (const turn of fact.audit.interactions) {
    node(turn.id, `#${turn.seq} ${clip(turn.text, 30)}`, "interaction");
    edge(fact.id, turn.id, "states");
  }
  for (const change of fact.audit.supersedes) {
    node(change.fact.id, clip(change.fact.text), "fact older");
    edge(fact.id, change.fact.id, "SUPERSEDES");
  }
  for (const change of fact.audit.supersededBy) {
    node(change.fact.id, clip(change.fact.text), "fact newer");
    edge(change.fact.id, fact.id, "SUPERSEDES");
  }
  for (const run of fact.audit.runs) {
    const why = run.triggeredBy === "salience" ? `\nsalience: ${run.rule ?? "?"}` : "";
    node(run.id, `${run.op}\n${run.model} · ${run.promptTokens + run.completionTokens} tok${why}`, "run");
    for (const produced of run.produced) if (nodes.has(produced.id)) edge(run.id, produced.id, "produced");
  }
  return [...nodes.values(), ...edges];
}

const STYLE: cytoscape.StylesheetJson = [
  { selector: "node", style: { label: "data(label)", "font-size": 10, "text-wrap": "wrap", "text-max-width": "120px", "text-valign": "bottom", "text-margin-y": 4, color: "#1b1f24", width: 22, height: 22 } },
  { selector: ".fact", style: { "background-color": "#0b6bcb", shape: "round-rectangle" } },
  { selector: ".focus", style: { "border-width": 4, "border-color": "#f0a000", width: 30, height: 30 } },
  { selector: ".older, .newer", style: { "background-color": "#7d5bbe" } },
  { selector: ".episode", style: { "background-color": "#1a7f37", shape: "hexagon" } },
  { selector: ".interaction", style: { "background-color": "#6e7781", shape: "ellipse", width: 16, height: 16 } },
  { selector: ".run", style: { "background-color": "#bc4c00", shape: "diamond" } },
  { selector: "edge", style: { width: 1.5, "line-color": "#8c959f", "target-arrow-color": "#8c959f", "target-arrow-shape": "triangle", "curve-style": "bezier", label: "data(label)", "font-size": 8, color: "#57606a", "text-rotation": "autorotate" } },
  { selector: "edge.supersedes", style: { "line-color": "#7d5bbe", "target-arrow-color": "#7d5bbe", width: 3 } },
];

export default function AuditGraph({ user, fact }: { user: string; fact: Fact }) {
  const container = useRef<HTMLDivElement>(null);
  const to = useViewHref();
  useEffect(() => {
    if (!container.current) return;
    const graph = cytoscape({
      container: container.current,
      elements: elements(fact),
      style: STYLE,
      layout: { name: "breadthfirst", directed: true, roots: [fact.id, ...fact.audit.supersededBy.map((c) => c.fact.id)], spacingFactor: 1.1, padding: 16 },
      wheelSensitivity: 0.3,
    });
    graph.on("tap", "node", (event) => {
      const target = event.target as cytoscape.NodeSingular;
      const id = target.id();
      if (target.hasClass("fact") && id !== fact.id) window.location.hash = to({ view: "facts", user, id });
      if (target.hasClass("episode")) window.location.hash = to({ view: "episodes", user, id });
    });
    container.current.dataset.nodes = String(graph.nodes().length);
    container.current.dataset.edges = String(graph.edges().length);
    return () => graph.destroy();
  }, [fact, user, to]);
  return (
    <>
      <ul className="legend" aria-label="Legend">
        <li><span className="key fact" /> fact (ringed: this one)</li>
        <li><span className="key older" /> replaced / replacing fact</li>
        <li><span className="key episode" /> episode version</li>
        <li><span className="key interaction" /> interaction</li>
        <li><span className="key run" /> run (model, tokens)</li>
      </ul>
      <div
        ref={container}
        className="graph"
        data-testid="audit-graph"
        role="img"
        aria-label="Provenance graph: the fact, the episode versions and interactions it comes from, the facts it replaced or that replaced it, and the runs that produced them"
      />
    </>
  );
}
