"""The community (issue #32; docs/community.md): friends and presence, each player's own
channel of notices, invitations, blocks and reports, the Watch list.

- :mod:`.presence`: who has a personal socket open, in this process or in Redis;
- :mod:`.notices`: the personal sockets of this node, and notices told on any node;
- :mod:`.watch`: the public matches in progress, and who sits at which;
- :mod:`.apart`: a block made or lifted told to the tables where both players sit;
- :mod:`.service`: who may befriend, block, report and invite whom.

Each imports only those above it.
"""

from __future__ import annotations

from ..cluster import Cluster
from ..db import social
from ..db.session import Database
from ..limiter import Limit, Limiter
from ..shared import Shared
from ..tables import Lobby
from .apart import Apart
from .notices import Notices
from .presence import make_presence
from .service import Community, CommunityError, Invitations
from .watch import Watch

__all__ = ["Community", "CommunityError", "Notices", "Watch", "make_community"]


def make_community(database: Database, shared: Shared, lobby: Lobby,
                   cluster: Cluster | None, limiter: Limiter,
                   invitations_per_player: str) -> Community:
    """The community's services, its notices listening already;
    ``invitations_per_player``: the rate of invitations and partner prompts (the
    ``limits`` notation)."""
    notices = Notices(shared, make_presence(shared),
                      lambda player_id: social.friend_ids(database, player_id), database)
    notices.start()
    apart = Apart(shared, lobby)
    apart.start()
    invitations = Invitations(limiter, Limit.rate("invitations", invitations_per_player))
    return Community(database, notices, Watch(lobby, cluster), apart, invitations)
