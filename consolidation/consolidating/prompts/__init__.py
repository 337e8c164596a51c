"""Prompts, one module per task: input model, response model, `TASK` and `messages(inp)`.

Every prompt puts memory content in a `<memory_data>` JSON block and tells the model it is data,
never instructions. Times are ISO 8601 in UTC, but a turn's, shown in the offset it was said in
(a prompt whose turns are all in UTC says all its times are), and a question's prompts'
(planning, answering), shown in the asker's offset. The pieces they share are in `common`; callers take
the input and output types from `consolidation.consolidating.consolidator`.
"""
