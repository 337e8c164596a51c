"""Cross-cutting request concerns of `/graphql`, each a small pure-ASGI middleware (Starlette's
style: they wrap the channels, so streaming responses and websockets pass through untouched).

api/app.py assembles them, outermost first: the GraphiQL page, the request id, unhandled errors,
the method, content negotiation, readiness, the API key, its rate limit, then the body cap. A
refusal is rendered by the endpoint's `RenderRefusal` (api/admission.py), in its own protocol.
"""
