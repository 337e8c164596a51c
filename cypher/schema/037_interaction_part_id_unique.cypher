// Finds a long turn's part by its id (`<interaction id>_p<n>`, unique as the interaction's is):
// forgetting a user erases its parts by id, and without this each id read all of the user's parts.
CREATE CONSTRAINT interaction_part_id_unique IF NOT EXISTS FOR (n:InteractionPart) REQUIRE n.id IS UNIQUE
