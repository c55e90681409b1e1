= Post-Incident Report INC-2024-031: Lumen Data Gateway rejected meter connections

Severity: P2. Date of incident: 27 February 2024. Duration: 47 minutes (06:12 to 06:59 CET). Author:
Jonas Albrecht, Head of IT. Status: final, 8 March 2024.

# Summary

On the morning of 27 February 2024, the active node of the Lumen Data Gateway cluster, lumen-gw-01,
stopped accepting new connections from smart meter gateways. For 47 minutes, approximately 6,200 meters
could not deliver their readings. No data was lost, because the smart meter gateways buffered their
readings locally and sent them again after the service had been restored.

# Timeline

| Time (CET) | Event |
| 06:04 | The meter gateway vendor rolls out firmware 4.8.2 to 6,900 smart meter gateways |
| 06:12 | Monitoring raises an alarm: error rate for incoming connections above 20 percent |
| 06:19 | The on-call engineer finds error LDG-1042 in /var/log/lumen/gateway.log |
| 06:31 | Manual failover to lumen-gw-02; the standby node reaches the same limit within two minutes |
| 06:44 | gateway.max_connections raised from 256 to 1024 on both nodes and configuration reloaded |
| 06:59 | Error rate back to normal; incident downgraded |

# Root Cause

The firmware update changed the reconnect behaviour of the smart meter gateways: after the short network
interruption caused by the update, all devices reconnected at the same moment without any random delay.
The configured limit of 256 concurrent connections per node, a value inherited from the pilot phase in
2022, was far below the vendor's recommendation of at least 1024 for installations with more than 5,000
smart meter gateways. The manual failover did not help because both nodes were configured with the same
connection limit.

# Impact

Readings from about 6,200 meters arrived up to 50 minutes late. Billing was not affected, and no readings
were lost. The customer service centre received three calls from commercial customers whose energy
management dashboards showed gaps. Information security was not affected.

# What went well

- Monitoring detected the problem eight minutes after the firmware rollout started.
- The devices' local buffers prevented any loss of data.
- The error code LDG-1042 pointed directly to the cause.

# What went wrong

- The connection limit had not been reviewed since the pilot phase.
- The runbook recommended a failover, which cannot help when both nodes share the same limit.
- The vendor did not announce the firmware rollout to us in advance.

# Corrective and preventive actions

| ID | Action | Owner | Status |
| CA-1 | Raise gateway.max_connections to 1024 on all nodes | Jonas Albrecht | Done |
| CA-2 | Ask the vendor to add a randomised reconnect delay to the firmware | Tobias Brandt | Done (firmware 4.8.3) |
| CA-3 | Alert when connections exceed 80 percent of the limit | IT Operations | Done |
| CA-4 | Load test with 1,500 simulated connections before the upgrade to version 3.2 | Jonas Albrecht | Open |
| CA-5 | Review all configuration values inherited from the pilot phase | Jonas Albrecht | Open |
| CA-6 | Update the failover runbook with a section on the connection limit | IT Operations | Done |

# Lessons learned

Configuration values chosen for a pilot must be reviewed before a system goes into large-scale operation.
Redundancy only protects against failures of individual nodes, not against a limit that applies to all
nodes alike. Firmware rollouts by external vendors must be coordinated with IT Operations.
