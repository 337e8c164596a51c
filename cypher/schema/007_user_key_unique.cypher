// A user id is unique within its tenant; two tenants may both have a user "alice".
CREATE CONSTRAINT user_key_unique IF NOT EXISTS FOR (n:User) REQUIRE (n.tenant, n.id) IS UNIQUE
