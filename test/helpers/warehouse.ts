/**
 * The warehouse aisle grid of the fleet scenarios, for the tests and the bench: it lives with the fleet picture
 * tool (src/tools/fleetWarehouse.ts), which draws it too.
 *
 * @module
 */
export { movingAiText, type Warehouse, warehouse, warehouseJobs } from "../../src/tools/fleetWarehouse.ts";
