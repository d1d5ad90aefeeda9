"""``GET /api/cluster``: the live server nodes, with their tables and sockets."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from ..deps import ClusterDep, ClusterSettingsDep, LobbyDep

router = APIRouter(tags=["server"])
STARTED = time.time()  # when this process started: its ``started_at`` when alone


class NodeOut(BaseModel):
    id: str
    url: str = Field(description="Where the other nodes reach it.")
    started_at: float = Field(description="Epoch seconds.")
    tables: int
    sockets: int


class ClusterOut(BaseModel):
    node: str = Field(description="The node that answered.")
    nodes: list[NodeOut] = Field(description="Every live node; one when running alone.")


@router.get("/cluster")
async def cluster_nodes(settings: ClusterSettingsDep, lobby: LobbyDep,
                        cluster: ClusterDep) -> ClusterOut:
    """The nodes as Redis knows them (each renews its entry every few seconds, so the
    counts are that old at most); without a cluster, this node alone."""
    if cluster is None:
        nodes: list[dict[str, Any]] = [{
            "id": settings.node_id, "url": settings.advertised_url, "started_at": STARTED,
            "tables": len(lobby.tables), "sockets": sum(t.connections for t in
                                                        lobby.tables.values()),
        }]
    else:
        nodes = list((await cluster.nodes()).values())
    return ClusterOut(node=settings.node_id, nodes=[NodeOut(**n) for n in nodes])

