// A schema command: runs in a transaction of its own, never beside data writes.
DROP INDEX $index IF EXISTS
