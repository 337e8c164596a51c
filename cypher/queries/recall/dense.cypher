// One recall's dense candidates from all three layers, in one round trip; every list is exact:
// the true top k by plain cosine over the user's own nodes, whatever other tenants store.
// Per layer: when the user has at most $exact_limit nodes there, or with a filter ($filtered; the
// $f_* parameters, graph/scopes.py: k hits whenever k match, never a post-filter), a scan of the
// user's nodes. Above it, when the caller holds the user's vectors (graph/vector_cache.py) of this
// vector epoch, the candidates are $ids_<layer> (its best nodes by cosine, whatever their state),
// the nodes written since it read them (vector_no above $known), and, for interactions, those
// with a part at least $floor_interactions; else the scan again. Counting stops at
// $exact_limit + 1, so the size check costs no more than the scan it replaces; each layer's
// `large` and `cached` come back, with the user's vector count and epoch, for the caller's cache.
// With $parts, a long interaction scores by the best of its own vector and its parts' (no vector
// index holds parts), so every part of it is searchable and it is counted once; without, by its
// own vector alone (the recurrence gate). A user whose node counts no long interaction
// (interactions/write_batch) has no parts to read: they are skipped; a user from before that
// count (null) reads them.
// A budget of 0 skips its layer. recall/lexical runs at the same time (on another core).
// Each choice of scan or candidates is a WHEN branch: a filter in front of a MATCH may be planned
// after its index seek, and scan every node of a large user for nothing.
// Every read is a pinned seek (USING INDEX SEEK): the candidates by id, for by the owner index the
// planner may pick on some statistics they would read every node of the large user the cache is
// there to spare; the user's nodes by the owner's indexes, which a plan made on a near-empty
// database may scan, every tenant's entries, and keep.
// Equal scores order by the item's own fields, so a scan and the candidates agree.
// Instants come back as ISO strings: the driver's temporal decoding is slow Python.
CYPHER 25
OPTIONAL MATCH (u:User {tenant: $tenant, id: $user_id})
USING INDEX SEEK u:User(tenant, id)
WITH $parts AND coalesce(u.long_interactions, 1) > 0 AS parts,
     coalesce(u.vectors, 0) AS written, coalesce(u.vectors_epoch, '') AS epoch
CALL () {
  MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
  USING INDEX SEEK n:Interaction(tenant, user_id)
  WITH n LIMIT $exact_limit + 1
  RETURN count(n) > $exact_limit AS interactions_large
}
CALL () {
  MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
  USING INDEX SEEK n:Episode(tenant, user_id)
  WITH n LIMIT $exact_limit + 1
  RETURN count(n) > $exact_limit AS episodes_large
}
CALL () {
  MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
  USING INDEX SEEK n:Fact(tenant, user_id)
  WITH n LIMIT $exact_limit + 1
  RETURN count(n) > $exact_limit AS facts_large
}
WITH parts, written, epoch, interactions_large, episodes_large, facts_large,
     NOT $filtered AND $epoch = epoch AS usable
WITH parts, written, epoch, interactions_large, episodes_large, facts_large,
     usable AND interactions_large AND $ids_interactions IS NOT NULL AS interactions_cached,
     usable AND episodes_large AND $ids_episodes IS NOT NULL AS episodes_cached,
     usable AND facts_large AND $ids_facts IS NOT NULL AS facts_cached
CALL (parts, interactions_cached) {
  WITH $k_interactions AS k WHERE k > 0
  CALL (interactions_cached, parts) {
    WHEN NOT interactions_cached THEN {
      MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
      USING INDEX SEEK n:Interaction(tenant, user_id)
      WHERE n.consolidated IN $consolidated
        AND ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN n.scopes)))
        AND ($f_since IS NULL OR n.occurred_at >= $f_since) AND ($f_until IS NULL OR n.occurred_at < $f_until)
      RETURN n
    }
    ELSE {
      MATCH (n:Interaction)
      USING INDEX SEEK n:Interaction(id)
      WHERE n.id IN $ids_interactions AND n.tenant = $tenant AND n.user_id = $user_id
        AND n.consolidated IN $consolidated
      RETURN n
    UNION
      MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
      USING INDEX SEEK n:Interaction(tenant, user_id, vector_no)
      WHERE n.vector_no > $known AND n.consolidated IN $consolidated
      RETURN n
    UNION
      CALL (parts) {
        WHEN parts THEN {
          MATCH (p:InteractionPart {tenant: $tenant, user_id: $user_id})
          USING INDEX SEEK p:InteractionPart(tenant, user_id)
          WHERE 2 * vector.similarity.cosine(p.embedding, $vector) - 1 >= $floor_interactions
          MATCH (n:Interaction)-[:HAS_PART]->(p)
          WHERE n.consolidated IN $consolidated
          RETURN DISTINCT n
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
  ORDER BY score DESC, n.seq LIMIT $k_interactions
  RETURN collect({item: n {.id, .tenant, .user_id, .session_id, .speaker, .text, .seq, .consolidated,
                           .source_ref, .agent_id, .metadata, .utc_offset_s, occurred_at: toString(n.occurred_at),
                           consolidated_at: toString(n.consolidated_at)},
                  score: score}) AS interactions_dense
}
CALL (episodes_cached) {
  WITH $k_episodes AS k WHERE k > 0
  CALL (episodes_cached) {
    WHEN NOT episodes_cached THEN {
      MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
      USING INDEX SEEK n:Episode(tenant, user_id)
      WHERE n.current = true
        AND ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN n.scopes)))
        AND ($f_since IS NULL OR n.last_at >= $f_since) AND ($f_until IS NULL OR n.first_at < $f_until)
      RETURN n
    }
    ELSE {
      MATCH (n:Episode)
      USING INDEX SEEK n:Episode(id)
      WHERE n.id IN $ids_episodes AND n.tenant = $tenant AND n.user_id = $user_id AND n.current = true
      RETURN n
    UNION
      MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
      USING INDEX SEEK n:Episode(tenant, user_id, vector_no)
      WHERE n.vector_no > $known AND n.current = true
      RETURN n
    }
  }
  WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
  ORDER BY score DESC, n.summary, n.id LIMIT $k_episodes
  RETURN collect({item: n {.id, .tenant, .user_id, .title, .summary, .version, .current,
                           first_at: toString(n.first_at), last_at: toString(n.last_at),
                           created_at: toString(n.created_at), valid_from: toString(n.valid_from),
                           superseded_at: toString(n.superseded_at), .scopes},
                  score: score}) AS episodes_dense
}
CALL (facts_cached) {
  WITH $k_facts AS k WHERE k > 0
  CALL (facts_cached) {
    WHEN NOT facts_cached THEN {
      MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
      USING INDEX SEEK n:Fact(tenant, user_id)
      WHERE n.status = 'active'
        AND ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN n.scopes))) AND ($f_kinds IS NULL OR n.kind IN $f_kinds)
        AND ($f_since IS NULL OR n.valid_from >= $f_since) AND ($f_until IS NULL OR n.valid_from < $f_until)
        AND ($f_valid_since IS NULL OR n.valid_from >= $f_valid_since)
        AND ($f_valid_until IS NULL OR n.valid_from < $f_valid_until)
      RETURN n
    }
    ELSE {
      MATCH (n:Fact)
      USING INDEX SEEK n:Fact(id)
      WHERE n.id IN $ids_facts AND n.tenant = $tenant AND n.user_id = $user_id AND n.status = 'active'
      RETURN n
    UNION
      MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
      USING INDEX SEEK n:Fact(tenant, user_id, vector_no)
      WHERE n.vector_no > $known AND n.status = 'active'
      RETURN n
    }
  }
  WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
  ORDER BY score DESC, n.text, n.id LIMIT $k_facts
  RETURN collect({item: n {.id, .tenant, .user_id, .text, .kind, .status,
                           valid_from: toString(n.valid_from), valid_to: toString(n.valid_to),
                           created_at: toString(n.created_at), .scopes},
                  score: score}) AS facts_dense
}
// When no episode and no fact is a candidate, whether the user holds a belief a person withdrew
// (recall/sources.cypher's rule, whatever its instant): without one, the caller sends no
// provenance statement for turns alone. Else null (not asked). Only the user's retracted and
// superseded facts are read (the owner index), and only the superseded ones' edges followed.
CALL (episodes_dense, facts_dense) {
  WHEN size(episodes_dense) = 0 AND size(facts_dense) = 0 THEN {
    RETURN EXISTS {
      MATCH (f:Fact {tenant: $tenant, user_id: $user_id})
      USING INDEX SEEK f:Fact(tenant, user_id, status)
      WHERE f.status IN [$retracted, $superseded]
      WITH f ORDER BY f.id
      WHERE f.status = $retracted OR EXISTS {
          MATCH (f)<-[:SUPERSEDES]-(:Fact)<-[:PRODUCED]-(run:ConsolidationRun)
          WHERE run.provider = $person AND run.trigger = $correction
        }
    } AS withdrawn_held
  }
  ELSE RETURN null AS withdrawn_held
}
RETURN interactions_dense, episodes_dense, facts_dense, withdrawn_held, written, epoch,
       interactions_large, episodes_large, facts_large,
       interactions_cached, episodes_cached, facts_cached
