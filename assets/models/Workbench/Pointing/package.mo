within Workbench;
package Pointing "Attitude actuators"
end Pointing;
