// The distinct speakers of one user's interactions, for reading a question's names as scope
// (consolidation/recall/names.py): the user's own, never another tenant's or user's.
MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
RETURN DISTINCT n.speaker AS speaker
