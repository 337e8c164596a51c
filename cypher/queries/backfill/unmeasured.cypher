// Up to $batch items of one layer ($label: Interaction, Episode or Fact) without the word count
// that lexical statistics sum (graph/lexical.py), with the text it is counted over.
CYPHER 25
MATCH (n:$($label))
WHERE n.lex_length IS NULL AND NOT n:Erased  // an erased node is emptied, not old: it stays empty
RETURN elementId(n) AS node, CASE $label WHEN 'Episode' THEN n.summary ELSE n.text END AS text
LIMIT $batch
