"""Flow completion times from SimGrid, for tests/test_topology_simgrid.py.

Run with the system Python that Debian's python3-simgrid installs into (not the venv):
`/usr/bin/python3 tests/simgrid_flows.py < cases.json`. The input gives SimGrid's
network model and options, and a list of cases; each case has its hosts (a count),
directed links (bytes/s, seconds) and flows (source and destination host, bytes, start
in seconds, the route as link names). The answer, on stdout as JSON, is per case each
flow's completion time in seconds.

SimGrid runs one engine per process, so every case becomes a part of one platform with
its own hosts and links (named after the case): no two cases share a resource, and the
flows of one case share links only with each other.
"""

import json
import sys

from simgrid import Actor, Engine, LinkInRoute, Mailbox, NetZone, this_actor


def main() -> None:
    batch = json.load(sys.stdin)
    args = [sys.argv[0], "--log=root.thresh:critical"]
    args += [f"--cfg={key}:{value}" for key, value in batch["config"].items()]
    engine = Engine(args)
    zone = NetZone.create_full_zone("net")
    starts = []
    for c, case in enumerate(batch["cases"]):
        hosts = [zone.create_host(f"c{c}h{i}", 1e9) for i in range(case["hosts"])]
        links = {}
        for link in case["links"]:
            made = zone.create_link(f"c{c}:{link['name']}", link["bandwidth"])
            made.set_latency(link["latency"])
            links[link["name"]] = made.seal()
        routed = set()
        for flow in case["flows"]:
            pair = (flow["src"], flow["dst"])
            if pair in routed:
                continue
            routed.add(pair)
            route = [LinkInRoute(links[name]) for name in flow["route"]]
            zone.add_route(
                hosts[pair[0]].netpoint, hosts[pair[1]].netpoint, None, None, route, False
            )
        starts.append(hosts)
    zone.seal()
    done = [[None] * len(case["flows"]) for case in batch["cases"]]

    def sender(c: int, i: int, start: float, size: float) -> None:
        this_actor.sleep_for(start)
        Mailbox.by_name(f"c{c}f{i}").put(i, size)

    def receiver(c: int, i: int) -> None:
        Mailbox.by_name(f"c{c}f{i}").get()
        done[c][i] = Engine.clock

    for c, case in enumerate(batch["cases"]):
        hosts = starts[c]
        for i, flow in enumerate(case["flows"]):
            Actor.create(f"c{c}r{i}", hosts[flow["dst"]], receiver, c, i)
            Actor.create(
                f"c{c}s{i}", hosts[flow["src"]], sender, c, i, flow["start"], flow["bytes"]
            )
    engine.run()
    json.dump(done, sys.stdout)


if __name__ == "__main__":
    main()
