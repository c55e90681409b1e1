= Depot Charging Project – Status Report No. 4 (June 2024)

Project: charging infrastructure for the electric service fleet at the Am Kanal depot. Reporting period:
1 May to 31 May 2024. Report date: 7 June 2024. Project manager: Ahmed Karimi. Project sponsor: Elena
Novak, Head of Fleet Management.

# 1 Summary

The civil works for the first charging row with 12 charge points were completed on 28 May 2024, two days
ahead of plan. Commissioning of the charge points depends on the new transformer station, whose delivery
has been postponed by the manufacturer to 19 July 2024. The overall project status is therefore amber. Of
the approved budget of EUR 1,240,000, EUR 612,500 had been spent or committed by 31 May 2024.

# 2 Progress in the reporting period

- Cable trenches and foundations for charging row A were finished.
- The contract for the charge point management software was awarded to Voltaris GmbH.
- Twenty drivers completed the training on the new charging procedure.

# 3 Decisions of the project board

The project board met on 5 June 2024. Ahmed Karimi presented the revised schedule.

Decision PB-24-11: The project board approves the revised schedule with commissioning of charging row A on
2 September 2024. Vote: 5 in favour, 0 against, 1 abstention.

Decision PB-24-12: The board agreed to rent a mobile transformer for EUR 8,400 per month until the
permanent transformer station is in operation. Vote: unanimous.

The proposal to add a second charging row in 2024 was rejected; it will be reconsidered in the budget round
for 2025.

# 4 Open items

Open item OI-7: Confirm the delivery date of the transformer station in writing. Owner: Jana Schubert.
Due: 14 June 2024. Status: open.

Open item OI-8: Obtain the grid operator's approval for the mobile transformer. Owner: Markus Weber. Due:
21 June 2024. Status: open.

Open item OI-9: Update the fire protection concept for the depot hall. Owner: Markus Weber. Due: 31 May
2024. Status: done.

Action: Elena Novak will present the charging rules for drivers to the works council by 28 June 2024.

Ahmed Karimi is to circulate the updated cost plan to the project board by 12 June 2024.

# 5 Risks and blockers

Risk R-3 (high): Further delays in the transformer delivery would push commissioning into the winter, when
the civil works for the connection cannot be carried out. Mitigation: the mobile transformer (PB-24-12).

Risk R-5 (medium): The charge point management software has not yet been tested with the vehicle model
used by the meter readers; charging could fail for these vehicles. Mitigation: a test with two vehicles in
July.

Blocker: Without the grid operator's approval, the mobile transformer must not be connected.

# 6 Milestones

| Milestone | Planned | Status |
| Civil works charging row A | 31 May 2024 | Done (28 May 2024) |
| Delivery of the transformer station | 19 July 2024 | Delayed |
| Commissioning of charging row A | 2 September 2024 | Planned |
| Final acceptance and handover to Fleet Management | 31 October 2024 | Planned |

# 7 Contacts

Project office: depot-charging@stadtwerke-birkenau.example, phone +49 6201 4711 270. The project wiki is
at https://wiki.stadtwerke-birkenau.example/depot-charging.
