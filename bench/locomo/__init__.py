"""LoCoMo: what building memory costs, and whether recall still reaches the evidence.

Streams each LoCoMo sample (one user per conversation, `source_ref` = the turn's dia_id, time = the
session date) through the engine against a real Neo4j, in up to three modes, each in a fresh tenant:

- `recmem`: the engine as configured: merge-first, the recurrence gate (theta_sim calibrated for the
  embedder unless `--theta-sim` is given; theta_count 5, top_k 10), semantic refinement.
- `eager`: the Mem0-style cost baseline: every unit is consolidated the moment it arrives, through
  the same pipeline. The gate is set to theta_count 1 (the unit alone opens it), theta_sim 1.0 and
  top_k 1 (no neighbours are pulled in), so each unit gets its own create_episode + refine_facts
  (refinement sees the related existing facts, like Mem0's update step), or a merge_episode +
  refine_facts when merge-first finds an episode at or above the merge threshold. The service's
  settings refuse theta_count 1, so the bench copies them without validation on purpose.
  Mem0 also sends recent messages as context with every extraction; leaving that out makes this
  baseline cheaper than Mem0 really is, so the comparison errs in eager's favour.
- `raw`: no consolidation at all: the subconscious layer only, and contexts of whole turns (plain
  retrieval over the raw turns).
- `focused-raw`: like raw, but its contexts show turns as recmem's do (lower-ranked turns focused
  on the query, consolidation/recall/sentences.py; relative dates resolved beside them): the ablation
  that tells the memory layers' share of recmem's gain from the context rendering's.

Units arrive one at a time in recmem and eager (consolidated inline after each), in batches of 50 in
raw. The LLM is, by default, the project's LocalLLMServer started in this process: real HTTP, the
real openai client and the server's o200k token accounting. Its replies are extractive by default
(see `bench.common.ExtractiveResponder`); `--replies generic` uses the server's generic replies.
`--llm config` uses the RECMEM_LLM_* endpoint instead, and then also answers every question and
scores the answers (token F1, BLEU-1, an LLM judge).

Evidence recall: for each question of categories 1-4 (5, adversarial, is excluded), the share of its
gold `evidence` dia_ids whose interactions are reached by `recall` with the default budgets
(10 interactions / 5 episodes / 10 facts), following DERIVED_FROM from episodes and facts to
interactions. Evidence ids that do not resolve to a streamed turn are left out of the share;
a question with none left is counted as skipped. Beside it: the size (o200k tokens) of the recalled
context, so that large episodes cannot buy recall unseen; and, when both recmem and raw run, a
`raw@recmem-tokens` row: raw recall again, keeping as many top interactions (from a pool of 100) as
fit in the context recmem recalled for the same question, i.e. raw at recmem's context size.

    .venv/bin/python -m bench.locomo --data ../shared/data/locomo/locomo-dev.json --modes recmem,eager,raw

Writes NAME.json, NAME.md, NAME.png and NAME-questions.jsonl under --out; prints the JSON on stdout.

The modules: `data` (samples and questions), `modes` (each mode's settings), `runner` (streaming
and asking), `construction` and `scoring` (what was measured), `answers` (with --answers),
`targets`, `report`, `markdown` and `chart` (the outputs), `results` (their typed shapes), `args`,
`calibration`, `endpoints` and `cli` (the command).
"""
