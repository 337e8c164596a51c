// One recall's dense candidates from all three layers, in one round trip. Per layer: when the
// user has at most $exact_limit nodes there, an exact scan (plain cosine over every node of the
// user: the true top k, whatever other tenants store); above it, a pool of $pool nearest nodes
// from the vector index, filtered inside it to the user, re-ranked by exact cosine. Counting stops
// at $exact_limit + 1, so the size check costs no more than the scan it replaces.
// With a filter ($filtered; the $f_* parameters, graph/scopes.py) every layer is an exact scan of
// the user's nodes that match it: k hits whenever k match, never a post-filter of an index's top k.
// With $parts, a long interaction scores by the best of its own vector and its parts' (above the
// exact limit, the user's parts are scanned: they are in no vector index), so every part of it is
// searchable and it is counted once; without, by its own vector alone (the recurrence gate).
// A user whose node counts no long interaction (interactions/write_batch) has no parts to read:
// they are skipped; a user from before that count (null) reads them.
// A budget of 0 skips its layer. recall/lexical runs at the same time (on another core).
// Each choice of scan or index is a WHEN branch: a filter in front of a MATCH may be planned
// after its index seek, and scan every node of a large user for nothing.
// Instants come back as ISO strings: the driver's temporal decoding is slow Python.
CYPHER 25
OPTIONAL MATCH (u:User {tenant: $tenant, id: $user_id})
WITH $parts AND coalesce(u.long_interactions, 1) > 0 AS parts
CALL (parts) {
  WITH $k_interactions AS k WHERE k > 0
  CALL () {
    MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
    WITH n LIMIT $exact_limit + 1
    RETURN $filtered OR count(n) <= $exact_limit AS exact
  }
  CALL (exact, parts) {
    WHEN exact THEN {
      MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
      WHERE n.consolidated IN $consolidated
        AND ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN n.scopes)))
        AND ($f_since IS NULL OR n.occurred_at >= $f_since) AND ($f_until IS NULL OR n.occurred_at < $f_until)
      RETURN n
    }
    ELSE {
      MATCH (n:Interaction)
        SEARCH n IN (
          VECTOR INDEX interaction_embedding
          FOR $vector
          WHERE n.tenant = $tenant AND n.user_id = $user_id AND n.consolidated IN $consolidated
          LIMIT $pool
        )
      RETURN n
    UNION
      CALL (parts) {
        WHEN parts THEN {
          MATCH (p:InteractionPart {tenant: $tenant, user_id: $user_id})
          WITH p ORDER BY vector.similarity.cosine(p.embedding, $vector) DESC LIMIT $pool
          MATCH (n:Interaction)-[:HAS_PART]->(p)
          WHERE n.consolidated IN $consolidated
          RETURN n
        }
      }
      RETURN n
    }
  }
  CALL (n, parts) {
    WITH n WHERE parts
    MATCH (n)-[:HAS_PART]->(p:InteractionPart)
    RETURN max(vector.similarity.cosine(p.embedding, $vector)) AS part_best
  }
  WITH n, vector.similarity.cosine(n.embedding, $vector) AS whole, part_best
  WITH n, 2 * CASE WHEN part_best > whole THEN part_best ELSE whole END - 1 AS score
  ORDER BY score DESC LIMIT $k_interactions
  RETURN collect({item: n {.id, .tenant, .user_id, .session_id, .speaker, .text, .seq, .consolidated,
                           .source_ref, .agent_id, .metadata, occurred_at: toString(n.occurred_at),
                           consolidated_at: toString(n.consolidated_at)},
                  score: score}) AS interactions_dense
}
CALL () {
  WITH $k_episodes AS k WHERE k > 0
  CALL () {
    MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
    WITH n LIMIT $exact_limit + 1
    RETURN $filtered OR count(n) <= $exact_limit AS exact
  }
  CALL (exact) {
    WHEN exact THEN {
      MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
      WHERE n.current = true
        AND ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN n.scopes)))
        AND ($f_since IS NULL OR n.last_at >= $f_since) AND ($f_until IS NULL OR n.first_at < $f_until)
      RETURN n
    }
    ELSE {
      MATCH (n:Episode)
        SEARCH n IN (
          VECTOR INDEX episode_embedding
          FOR $vector
          WHERE n.tenant = $tenant AND n.user_id = $user_id AND n.current = true
          LIMIT $pool
        )
      RETURN n
    }
  }
  WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
  ORDER BY score DESC LIMIT $k_episodes
  RETURN collect({item: n {.id, .tenant, .user_id, .title, .summary, .version, .current,
                           first_at: toString(n.first_at), last_at: toString(n.last_at),
                           created_at: toString(n.created_at), valid_from: toString(n.valid_from),
                           superseded_at: toString(n.superseded_at), .scopes},
                  score: score}) AS episodes_dense
}
CALL () {
  WITH $k_facts AS k WHERE k > 0
  CALL () {
    MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
    WITH n LIMIT $exact_limit + 1
    RETURN $filtered OR count(n) <= $exact_limit AS exact
  }
  CALL (exact) {
    WHEN exact THEN {
      MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
      WHERE n.status = 'active'
        AND ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN n.scopes))) AND ($f_kinds IS NULL OR n.kind IN $f_kinds)
        AND ($f_since IS NULL OR n.valid_from >= $f_since) AND ($f_until IS NULL OR n.valid_from < $f_until)
        AND ($f_valid_since IS NULL OR n.valid_from >= $f_valid_since)
        AND ($f_valid_until IS NULL OR n.valid_from < $f_valid_until)
      RETURN n
    }
    ELSE {
      MATCH (n:Fact)
        SEARCH n IN (
          VECTOR INDEX fact_embedding
          FOR $vector
          WHERE n.tenant = $tenant AND n.user_id = $user_id AND n.status = 'active'
          LIMIT $pool
        )
      RETURN n
    }
  }
  WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
  ORDER BY score DESC LIMIT $k_facts
  RETURN collect({item: n {.id, .tenant, .user_id, .text, .kind, .status,
                           valid_from: toString(n.valid_from), valid_to: toString(n.valid_to),
                           created_at: toString(n.created_at), .scopes},
                  score: score}) AS facts_dense
}
RETURN interactions_dense, episodes_dense, facts_dense
