"""The service surface: GraphQL over Starlette, auth, CLI."""
