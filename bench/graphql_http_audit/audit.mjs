// The GraphQL-over-HTTP spec's audits (graphql-http's auditServer) against a running service.
// Usage: bench/graphql_http_audit/run.sh URL KEY   (prints every non-ok result and the counts)
import { auditServer } from 'graphql-http';

const [url, key] = process.argv.slice(2);
// Every audit request carries the API key; the service refuses anonymous requests.
const fetchFn = (input, init = {}) => {
  const headers = new Headers(init.headers || {});
  headers.set('authorization', `Bearer ${key}`);
  return fetch(input, { ...init, headers });
};
const results = await auditServer({ url, fetchFn });
const counts = {};
for (const result of results) {
  counts[result.status] = (counts[result.status] || 0) + 1;
  if (result.status !== 'ok') console.log(`${result.status}: ${result.name}: ${result.reason}`);
}
console.log(JSON.stringify(counts));
process.exit(counts.error || counts.warn ? 1 : 0);
