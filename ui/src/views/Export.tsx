// Export: the user's memory as the JSON Lines of `GET /export` (docs/export.md), fetched from
// `User.exportUrl` with the tab's key and saved as <user>.jsonl. A plain link cannot send the key
// header, and the service takes no key in a URL (it would stay in history and logs).
import { useState } from "react";
import { storedKey } from "../auth";

type Problem = { code: string; message: string };

export function ExportButton({ user, url }: { user: string; url: string }) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const download = async () => {
    setBusy(true);
    setProblem(null);
    try {
      const response = await fetch(url, { headers: { authorization: `Bearer ${storedKey() ?? ""}` } });
      if (!response.ok) {
        setProblem(await refusal(response));
        return;
      }
      save(await response.blob(), `${user}.jsonl`);
    } catch (error) {
      // The network, or a stream cut short (a file that import would refuse): nothing is saved.
      setProblem({ code: "Error", message: `the export did not complete (${error instanceof Error ? error.message : String(error)})` });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="export">
      <button type="button" onClick={download} disabled={busy} title={`Download ${user}'s memory as JSON Lines`}>
        {busy ? "Exporting…" : "Export"}
      </button>
      {problem && (
        <div className="error" role="alert" data-testid="export-problem">
          <strong>{problem.code}</strong> Export failed: {problem.message}
        </div>
      )}
    </div>
  );
}

/** What a refused export says: the service answers one GraphQL-shaped error (api/export.py). */
async function refusal(response: Response): Promise<Problem> {
  const fallback = { code: `HTTP ${response.status}`, message: response.statusText || "the export was refused" };
  try {
    const error = (await response.json())?.errors?.[0];
    return error?.message ? { code: error.extensions?.code ?? fallback.code, message: error.message } : fallback;
  } catch {
    return fallback; // not JSON (a proxy's page)
  }
}

/** Hands `blob` to the browser as a download named `filename`. */
function save(blob: Blob, filename: string): void {
  const href = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = href;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Once the click has handed the file over.
  window.setTimeout(() => URL.revokeObjectURL(href), 0);
}
