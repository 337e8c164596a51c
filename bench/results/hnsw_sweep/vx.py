"""Vector-index experiments for recmem-graph (one user, 100k vectors, dim 384).

Usage:
  vx.py gen                       # generate data + queries + ground truth (uniform and clustered)
  vx.py load CONFIG               # create index CONFIG (before loading), load its labelled copy of the data
  vx.py measure CONFIG POOL...    # recall@10 / latency for each pool
Results are appended to /tmp/vx/results.jsonl.
"""
import json, os, sys, time
import numpy as np
import neo4j
from neo4j.vector import Vector

D = 384; K = 10; N_MAIN = 100_000; N_OTHER_USERS = 20; PER_OTHER = 1_000
N_Q = 200; N_WARM = 30; TENANT = "t_vx"; MAIN_USER = "u_main"
DATA = "/tmp/vx/data"
RESULTS = "/tmp/vx/results.jsonl"

# config name -> (data distribution, extra indexConfig)
CONFIGS = {
    "def":    ("uniform",   {}),
    "m32":    ("uniform",   {"vector.hnsw.m": 32, "vector.hnsw.ef_construction": 200}),
    "m48":    ("uniform",   {"vector.hnsw.m": 48, "vector.hnsw.ef_construction": 400}),
    "cdef":   ("clustered", {}),
    "cm32":   ("clustered", {"vector.hnsw.m": 32, "vector.hnsw.ef_construction": 200}),
}
for name in list(CONFIGS):  # expansion-factor variants, e.g. def_x4
    pass

def cfg(name):
    if name in CONFIGS:
        return CONFIGS[name]
    base, x = name.split("_x")  # e.g. m32_x4 -> m32 config with default_search_expansion_factor 4
    dist, extra = CONFIGS[base]
    return dist, {**extra, "vector.default_search_expansion_factor": float(x)}

def label(name): return "Vx_" + name
def index(name): return "vx_" + name

def unit(a):
    return (a / np.linalg.norm(a, axis=1, keepdims=True)).astype(np.float32)

def gen():
    os.makedirs(DATA, exist_ok=True)
    rng = np.random.default_rng(20260901)
    n_total = N_MAIN + N_OTHER_USERS * PER_OTHER
    # uniform
    emb = unit(rng.standard_normal((n_total, D)))
    warm = unit(rng.standard_normal((N_WARM, D)))
    qs = unit(rng.standard_normal((N_Q, D)))
    np.save(f"{DATA}/uniform_emb.npy", emb); np.save(f"{DATA}/uniform_warm.npy", warm); np.save(f"{DATA}/uniform_q.npy", qs)
    np.save(f"{DATA}/uniform_gt.npy", truth(emb[:N_MAIN], qs))
    # clustered: normalize(center + noise*0.8/sqrt(384)), 1000 topic centres
    centres = unit(rng.standard_normal((1000, D)))
    def draw(n):
        c = centres[rng.integers(0, 1000, n)]
        return unit(c + rng.standard_normal((n, D)) * 0.8 / np.sqrt(D))
    emb = draw(n_total); warm = draw(N_WARM); qs = draw(N_Q)
    np.save(f"{DATA}/clustered_emb.npy", emb); np.save(f"{DATA}/clustered_warm.npy", warm); np.save(f"{DATA}/clustered_q.npy", qs)
    np.save(f"{DATA}/clustered_gt.npy", truth(emb[:N_MAIN], qs))
    print("generated")

def truth(user_emb, qs):
    sims = qs @ user_emb.T
    top = np.argpartition(-sims, K, axis=1)[:, :K]
    return np.sort(top, axis=1)

def user_of(i):
    return MAIN_USER if i < N_MAIN else f"u_other_{(i - N_MAIN) // PER_OTHER}"

def driver():
    pw = open("/tmp/vx-neo4j/password").read().strip()
    return neo4j.GraphDatabase.driver("bolt://127.0.0.1:7741", auth=("neo4j", pw))

def show(s, name=None):
    rows = s.run("SHOW VECTOR INDEXES YIELD name, state, populationPercent, options RETURN *").data()
    return [r for r in rows if name is None or r["name"] == name]

def load(name):
    dist, extra = cfg(name)
    emb = np.load(f"{DATA}/{dist}_emb.npy")
    opts = {"vector.dimensions": D, "vector.similarity_function": "cosine", "vector.quantization.type": "NONE", **extra}
    opt_txt = ", ".join(f"`{k}`: {json.dumps(v) if not isinstance(v, str) else repr(v)}" for k, v in opts.items())
    with driver() as d, d.session() as s:
        s.run(f"CYPHER 25 CREATE VECTOR INDEX {index(name)} IF NOT EXISTS FOR (n:{label(name)}) ON n.embedding "
              f"WITH [n.tenant, n.user_id, n.consolidated] OPTIONS {{indexConfig: {{{opt_txt}}}}}").consume()
        s.run("CALL db.awaitIndexes(600)").consume()
        print(show(s, index(name)))
        # interleave users so the other users' vectors are spread through the load (shuffled order)
        order = np.random.default_rng(7).permutation(len(emb))
        q = (f"CYPHER 25 UNWIND $rows AS r CREATE (n:{label(name)} {{tenant: $tenant, user_id: r.user_id, consolidated: false, seq: r.seq}}) "
             "WITH n, r CALL db.create.setNodeVectorProperty(n, 'embedding', toFloatList(r.e))")
        la0 = os.getloadavg(); t0 = time.perf_counter()
        B = 2000
        for b in range(0, len(order), B):
            rows = [{"user_id": user_of(int(i)), "seq": int(i), "e": Vector.from_numpy(emb[i])} for i in order[b:b + B]]
            s.execute_write(lambda tx: tx.run(q, rows=rows, tenant=TENANT).consume())
            if (b // B) % 10 == 0:
                print(f"  {b + B} rows {time.perf_counter() - t0:.0f}s", flush=True)
        t_load = time.perf_counter() - t0
        s.run("CALL db.awaitIndexes(3600)").consume()
        t_all = time.perf_counter() - t0
        info = show(s, index(name))[0]
        rec = {"kind": "load", "config": name, "dist": dist, "n": len(emb), "load_s": round(t_load, 1),
               "load_rate_per_s": round(len(emb) / t_load), "load_plus_await_s": round(t_all, 1),
               "loadavg_before": la0, "loadavg_after": os.getloadavg(), "state": info["state"],
               "pct": info["populationPercent"], "options": info["options"]}
        print(json.dumps(rec)); open(RESULTS, "a").write(json.dumps(rec) + "\n")

QUERY = ("CYPHER 25 MATCH (n:{label}) SEARCH n IN (VECTOR INDEX {index} FOR $vector "
         "WHERE n.tenant = $tenant AND n.user_id = $user_id LIMIT $candidates) SCORE AS similarity "
         "WITH n ORDER BY similarity DESC LIMIT $k "
         "RETURN n.seq AS seq, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score ORDER BY score DESC")

def run_pool(s, q, warm, qs, gt, pool):
    for v in warm:
        s.run(q, vector=Vector.from_numpy(v), tenant=TENANT, user_id=MAIN_USER, candidates=pool, k=K).data()
    la0 = os.getloadavg()
    lat, rec = [], []
    for v, g in zip(qs, gt):
        vec = Vector.from_numpy(v)
        t0 = time.perf_counter()
        rows = s.run(q, vector=vec, tenant=TENANT, user_id=MAIN_USER, candidates=pool, k=K).data()
        lat.append((time.perf_counter() - t0) * 1000)
        got = {r["seq"] for r in rows}
        rec.append(len(got & set(g.tolist())) / K)
    la1 = os.getloadavg()
    return {"recall": round(float(np.mean(rec)), 4), "min_recall": float(np.min(rec)),
            "p50": round(float(np.percentile(lat, 50)), 2), "p99": round(float(np.percentile(lat, 99)), 2),
            "mean": round(float(np.mean(lat)), 2), "loadavg_before": la0[0], "loadavg_after": la1[0]}

def jvm_has_vector_module():
    pid = open("/tmp/vx-neo4j/run/recmem-neo4j.pid").read().strip()
    return b"jdk.incubator.vector" in open(f"/proc/{pid}/cmdline", "rb").read()

def measure(name, pools, tag=""):
    dist, _ = cfg(name)
    warm = np.load(f"{DATA}/{dist}_warm.npy"); qs = np.load(f"{DATA}/{dist}_q.npy"); gt = np.load(f"{DATA}/{dist}_gt.npy")
    q = QUERY.format(label=label(name), index=index(name))
    vec_mod = jvm_has_vector_module()
    with driver() as d, d.session() as s:
        info = show(s, index(name))[0]
        assert info["state"] == "ONLINE" and info["populationPercent"] == 100.0, info
        for pool in pools:
            r = run_pool(s, q, warm, qs, gt, pool)
            attempts = [r]
            if max(r["loadavg_before"], r["loadavg_after"]) > 1.5:
                r = run_pool(s, q, warm, qs, gt, pool); attempts.append(r)
            rec = {"kind": "measure", "config": name, "dist": dist, "pool": pool, "vector_module": vec_mod,
                   "tag": tag, **r, "attempts": len(attempts), "first_attempt": attempts[0] if len(attempts) > 1 else None,
                   "index_options": info["options"]["indexConfig"]}
            print(json.dumps({k: v for k, v in rec.items() if k != "index_options"}), flush=True)
            open(RESULTS, "a").write(json.dumps(rec) + "\n")

if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "gen": gen()
    elif cmd == "load": load(sys.argv[2])
    elif cmd == "measure":
        tag = os.environ.get("VX_TAG", "")
        measure(sys.argv[2], [int(p) for p in sys.argv[3:]], tag)
