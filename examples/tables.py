# %% [markdown]
# # From search to DataFrame, Parquet and DuckDB
# Cells run top to bottom in Jupyter (or as a script). The tables are built in
# the Rust core from the answers' bytes: no Python object per hit.

# %%
from __future__ import annotations

import tempfile
from pathlib import Path

import duckdb
import polars as pl

from urlscan_rs import schema
from urlscan_rs.testing import Emulator

emu = Emulator(scans=3000, scan_duration=1.0)  # for the real service: client = Client()  (URLSCAN_API_KEY)
client = emu.client()

# %% A week of scans as a Polars DataFrame (the Arrow stream: pyarrow is not needed)
week = pl.DataFrame(client.search("date:>now-7d", limit=2000))
print(week.shape, "columns:", ", ".join(week.columns[:8]), "...")

# %% Which countries host them: a chart (in Jupyter, `by_country.plot.bar(...)` with altair installed)
by_country = week.group_by("country").len().sort("len", descending=True).head(8)
widest = max(by_country["len"].to_list(), default=1)
for country, n in by_country.iter_rows():
    print(f"{country or '??':>3} {'#' * max(1, 40 * n // widest)} {n}")

# %% Unknown stays unknown: `malicious` is null when the service gave no verdict, never False
print(schema.SCANS["malicious"].doc)
print(week.select(pl.col("malicious").value_counts()).to_series().to_list())

# %% Columns by name, and any wire field by its dotted path
pages = client.search("page.status:200", limit=300).to_polars(columns=["uuid", "domain", "page.mimeType", "stats.consoleMsgs"])
print(pages.head(3))

# %% A Parquet export (row groups written as the walk goes; rerun with resume=True after an interruption)
lake = Path(tempfile.mkdtemp()) / "lake"
rows = client.search("", limit=3000).to_parquet(lake, partition_by=["date"])
print(f"{rows} hits in {sum(1 for _ in lake.iterdir())} daily partitions")

# %% DuckDB over the Parquet files
top = duckdb.sql(  # type: ignore[union-attr]
    f"""
    select apex_domain, count(*) as scans, count(distinct ip) as ips
    from read_parquet('{lake}/**/*.parquet', hive_partitioning = true)
    group by apex_domain order by scans desc limit 5
    """
).fetchall()
for apex, scans, ips in top:
    print(f"{apex:<30} {scans:>5} scans {ips:>4} IPs")

emu.stop()
