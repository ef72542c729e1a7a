# %% [markdown]
# # urlscan-rs in a notebook
# Cells run top to bottom in Jupyter (or as a script). Results, search hits and
# iterators render as tables; screenshots render as images.

# %%
from __future__ import annotations

from urlscan_rs.testing import Emulator

emu = Emulator(scans=300, scan_duration=1.0)  # for the real service: client = Client()  (URLSCAN_API_KEY)
client = emu.client()

# %% A search iterator shows its first page as a table when displayed
hits = client.search("date:>now-7d AND NOT page.country:us", size=20, limit=60)
html = hits._repr_html_()  # what Jupyter shows for `hits`
print(f"{hits.total} hits; the table has {html.count('<tr>') - 1} rows")

# %% Flat records, and a DataFrame when pandas is installed
records = hits.to_records()
print(len(records), "records; columns:", ", ".join(records[0]))
try:
    df = client.search("page.server:nginx", limit=200).to_pandas()
    print(df.groupby("country").size().sort_values(ascending=False).head())
except ImportError as e:
    print(e)

# %% Bulk scans with progress, then a screenshot that displays as an image
outcomes = client.bulk_scan(
    ["https://www.example.com/", "https://news.example.org/"], progress=True, initial_wait=1.0, interval=0.2, timeout=30
)
result = outcomes[0].result
assert result is not None
shot = client.screenshot(result.uuid)  # bytes; Jupyter renders it (``_repr_png_``)
print(result, f"screenshot: {len(shot)} bytes")

# %%
emu.stop()
