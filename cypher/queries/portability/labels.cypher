// Every node label of the database; graph/portability.py keeps those a user's memory may carry.
CALL db.labels() YIELD label
RETURN collect(label) AS labels
