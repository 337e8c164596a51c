"""Reading memory: layered recall, the token-budgeted context, answers and the audit read side."""
