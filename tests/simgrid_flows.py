"""Flow completion times from SimGrid, for tests/test_topology_simgrid.py.

Run with the system Python that Debian's python3-simgrid installs into (not the venv):
`/usr/bin/python3 tests/simgrid_flows.py < case.json`. The case gives SimGrid's
network model and options, directed links (bytes/s, seconds), and flows (source and
destination host, bytes, start in seconds, the route as link names); the answer, on
stdout as JSON, is each flow's completion time in seconds.
"""

import json
import sys

from simgrid import Actor, Engine, LinkInRoute, Mailbox, NetZone, this_actor


def main() -> None:
    case = json.load(sys.stdin)
    args = [sys.argv[0], "--log=root.thresh:critical"]
    args += [f"--cfg={key}:{value}" for key, value in case["config"].items()]
    engine = Engine(args)
    zone = NetZone.create_full_zone("net")
    hosts = [zone.create_host(f"h{i}", 1e9) for i in range(case["hosts"])]
    links = {}
    for link in case["links"]:
        made = zone.create_link(link["name"], link["bandwidth"])
        made.set_latency(link["latency"])
        links[link["name"]] = made.seal()
    routed = set()
    for flow in case["flows"]:
        pair = (flow["src"], flow["dst"])
        if pair in routed:
            continue
        routed.add(pair)
        route = [LinkInRoute(links[name]) for name in flow["route"]]
        zone.add_route(hosts[pair[0]].netpoint, hosts[pair[1]].netpoint, None, None, route, False)
    zone.seal()
    done = [None] * len(case["flows"])

    def sender(i: int, start: float, size: float) -> None:
        this_actor.sleep_for(start)
        Mailbox.by_name(f"flow{i}").put(i, size)

    def receiver(i: int) -> None:
        Mailbox.by_name(f"flow{i}").get()
        done[i] = Engine.clock

    for i, flow in enumerate(case["flows"]):
        Actor.create(f"recv{i}", hosts[flow["dst"]], receiver, i)
        Actor.create(f"send{i}", hosts[flow["src"]], sender, i, flow["start"], flow["bytes"])
    engine.run()
    json.dump(done, sys.stdout)


if __name__ == "__main__":
    main()
