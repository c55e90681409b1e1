= Stadtwerke Birkenau GmbH – Annual Report 2023

Published by the Management Board, Birkenau, May 2024. This English edition is a translation of the
German annual report; in case of doubt the German version prevails.

# 1 Executive Summary

2023 was a year of consolidation for Stadtwerke Birkenau. Despite the after-effects of the energy price
crisis, we reliably supplied 41,200 households and businesses with electricity, water and district
heating. Revenue rose to EUR 84.6 million (2022: EUR 79.1 million), while net income fell slightly to
EUR 3.9 million because of higher procurement costs. We invested EUR 21.3 million, more than in any
previous year, most of it in the water network and in the digitalisation of metering.

The most important milestones were the start of the smart meter rollout, the commissioning of the new UV
disinfection plant at the Birkenau-Nord waterworks and the connection of 212 additional buildings to the
district heating network.

# 2 Water Supply

## 2.1 Production and Quality

Our six wells and the Birkenau-Nord waterworks produced 3.4 million cubic metres of drinking water in
2023. All 1,180 laboratory samples taken during the year complied with the limits of the German Drinking
Water Ordinance (Trinkwasserverordnung). The new UV disinfection stage, commissioned in September,
replaces chlorine dosing as the primary disinfection step; a chlorine dioxide system is now only kept on
standby.

## 2.2 Network Renewal

The water network has a length of 287 kilometres. We renewed 4.1 kilometres of mains in 2023, which
corresponds to a renewal rate of 1.4 percent. Water losses decreased from 9.8 to 8.6 percent of the
volume fed into the network, mainly thanks to systematic leak detection with acoustic loggers.

Planning for the refurbishment of the Eichberg elevated reservoir was completed in 2023. The reservoir,
built in 1962, shows cracks in the inner coating of both chambers. Construction is scheduled to start in
spring 2024 with a total budget of EUR 2.1 million.

# 3 Electricity and District Heating

Electricity sales amounted to 312 GWh, a decrease of 3 percent compared with the previous year, which we
attribute mainly to energy savings by commercial customers. The distribution grid recorded an average
interruption duration (SAIDI) of 9.7 minutes per customer, well below the national average.

District heating sales rose to 96 GWh. With 212 new connections, the district heating network now
supplies 2,950 buildings. The combined heat and power plant at Werkstraße was operated for 6,840 full-load
hours.

# 4 Digital Transformation

## 4.1 Smart Metering

In accordance with the German Metering Point Operation Act, we began installing intelligent metering
systems in March 2023. By the end of the year, 9,800 of the approximately 31,000 metering points in scope
had been equipped. The rollout is planned to be completed by the end of 2026.

## 4.2 Data Platform

To integrate the new meters, we introduced the Lumen Data Gateway as the central middleware between smart
meter gateways and our meter data management system. The platform runs as a two-node cluster in our data
centres North and South. Availability of the platform in the second half of 2023 was 99.93 percent.
Further work on the platform, including an upgrade to version 3.2, is planned for 2024.

# 5 Financial Performance

The following table summarises the key figures of the financial year compared with the previous year.

| Key figure | 2023 | 2022 |
| Revenue | EUR 84.6 million | EUR 79.1 million |
| EBIT | EUR 6.2 million | EUR 7.0 million |
| Net income | EUR 3.9 million | EUR 4.4 million |
| Investments | EUR 21.3 million | EUR 16.8 million |
| Equity ratio | 38.5 % | 37.9 % |
| Employees at year-end | 264 | 251 |

The decline in EBIT results primarily from procurement costs for electricity that could only partly be
passed on to customers. The equity ratio improved slightly because of the retention of profits agreed
with the City of Birkenau as sole shareholder.

# 6 Employees

At the end of 2023, Stadtwerke Birkenau employed 264 people, including 19 apprentices. Staff turnover was
4.2 percent. To counter the shortage of skilled workers, we introduced a dual study programme in
electrical engineering together with a regional university of applied sciences and expanded our
in-house training for pipe fitters.

# 7 Outlook 2024

For 2024 we expect revenue of around EUR 86 million. Our investment plan provides for EUR 24.5 million,
the largest items being the refurbishment of the Eichberg elevated reservoir, the continuation of the
smart meter rollout and the expansion of the district heating network. In March 2024 the committees of
Stadtwerke Birkenau decided to adjust the water price with effect from 1 January 2025; it had last been
changed in 2019.
